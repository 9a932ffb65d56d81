package behaviour

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/arbor-ai/arbor/internal/jsonread"
)

// jsonKV is one key and value of a JSON object, in order.
type jsonKV struct {
	key string
	val json.RawMessage
}

// jsonObject decodes data as one JSON object, keeping the order of its
// keys and rejecting a duplicate key; where prefixes the fields named in
// errors ("" or "o.").
func (r *Reader) jsonObject(line int, where string, data []byte) ([]jsonKV, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	bad := func(err error) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return r.fault(line, strings.TrimSuffix(where, "."), "invalid JSON near byte %d: %v", se.Offset, err)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return r.fault(line, strings.TrimSuffix(where, "."), "invalid JSON: unexpected end of the line")
		}
		return r.fault(line, strings.TrimSuffix(where, "."), "invalid JSON: %v", err)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, bad(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, r.fault(line, strings.TrimSuffix(where, "."), "want a JSON object, got %s", jsonread.Shorten(string(bytes.TrimSpace(data))))
	}
	var kvs []jsonKV
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad(err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, bad(err)
		}
		for _, kv := range kvs {
			if kv.key == key {
				return nil, r.fault(line, where+key, "appears twice")
			}
		}
		kvs = append(kvs, jsonKV{key, raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, bad(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, r.fault(line, strings.TrimSuffix(where, "."), "trailing data after the JSON object")
	}
	return kvs, nil
}

// jsonKind classifies a JSON value of the format.
type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonString
	jsonIndex // a non-negative integer literal
	jsonOther
)

// jsonScalar classifies raw and returns a string's contents or an index.
func jsonScalar(raw json.RawMessage) (jsonKind, string, int) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return jsonOther, "", 0
	case string(raw) == "null":
		return jsonNull, "", 0
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return jsonOther, "", 0
		}
		return jsonString, s, 0
	}
	if n, ok := digits(string(raw)); ok {
		return jsonIndex, string(raw), n
	}
	return jsonOther, "", 0
}

// readJSONRow reads the next non-blank JSON line into r.row.
func (r *Reader) readJSONRow() (bool, error) {
	var data []byte
	for {
		if r.first != nil {
			data, r.first = r.first, nil
		} else {
			line, err := r.lr.next()
			if err == io.EOF {
				return false, nil
			}
			if err != nil {
				return false, err
			}
			data = line
		}
		if len(bytes.TrimSpace(data)) > 0 {
			break
		}
	}
	line := r.lr.line
	kvs, err := r.jsonObject(line, "", data)
	if err != nil {
		return false, err
	}
	row := &r.row
	row.line = line
	var subj, trial, step, obs, act json.RawMessage
	var extras []jsonKV
	for _, kv := range kvs {
		switch kv.key {
		case "subject":
			subj = kv.val
		case "trial":
			trial = kv.val
		case "step":
			step = kv.val
		case "o":
			obs = kv.val
		case "u":
			act = kv.val
		case "":
			return false, r.fault(line, "", "a key is empty (name every field)")
		default:
			if reservedColumn(kv.key) {
				return false, r.fault(line, kv.key, "unknown: JSON lines give outcomes in \"o\" and actions in \"u\", objects keyed by modality and factor")
			}
			extras = append(extras, kv)
		}
	}
	for _, f := range []struct {
		key string
		v   json.RawMessage
	}{{"subject", subj}, {"trial", trial}, {"step", step}, {"o", obs}} {
		if f.v == nil {
			return false, r.fault(line, f.key, "missing")
		}
	}
	k, s, _ := jsonScalar(subj)
	if k != jsonString {
		return false, r.fault(line, "subject", "%s, want a string", jsonread.Shorten(string(subj)))
	}
	if s == "" {
		return false, r.fault(line, "subject", "empty")
	}
	row.subject = s
	k, _, n := jsonScalar(trial)
	if k != jsonIndex || n < 1 || n >= 1<<62 {
		return false, r.fault(line, "trial", "%s, want an integer >= 1", jsonread.Shorten(string(trial)))
	}
	row.trial = n
	k, _, n = jsonScalar(step)
	if k != jsonIndex || n >= 1<<62 {
		return false, r.fault(line, "step", "%s, want an integer >= 0", jsonread.Shorten(string(step)))
	}
	row.step = n
	if err := r.sequence(); err != nil {
		return false, err
	}
	if err := r.jsonObs(line, obs); err != nil {
		return false, err
	}
	if err := r.jsonAct(line, act); err != nil {
		return false, err
	}
	row.extra = nil
	for _, kv := range extras {
		if _, ok := r.extraIndex[kv.key]; !ok {
			if len(r.extraNames) == MaxJSONExtra {
				return false, r.fault(line, kv.key, "more than %d distinct extra keys (behaviour.MaxJSONExtra)", MaxJSONExtra)
			}
			r.extraIndex[kv.key] = len(r.extraNames)
			r.extraNames = append(r.extraNames, kv.key)
		}
	}
	if len(r.extraNames) > 0 {
		row.extra = cut(&r.strs, len(r.extraNames))
		for _, kv := range extras {
			v := strings.TrimSpace(string(kv.val))
			if k, s, _ := jsonScalar(kv.val); k == jsonString {
				v = s
			} else {
				var b bytes.Buffer
				if json.Compact(&b, kv.val) == nil {
					v = b.String()
				}
			}
			row.extra[r.extraIndex[kv.key]] = v
		}
	}
	return true, r.finishRow(r.jsonCtls)
}

func (r *Reader) jsonObsField(i int) string {
	if r.bm.named {
		return "o." + r.bm.modNames[i]
	}
	return "o"
}

func (r *Reader) jsonCtlField(k int) string {
	if r.bm.named {
		return "u." + r.bm.ctlNm[k]
	}
	return "u"
}

// jsonOutcome resolves the JSON value of modality i.
func (r *Reader) jsonOutcome(line, i int, raw json.RawMessage) error {
	field := r.jsonObsField(i)
	var o int
	var msg string
	switch k, s, n := jsonScalar(raw); k {
	case jsonString:
		o, msg = r.bm.outcome(i, s)
	case jsonIndex:
		o, msg = r.bm.outcomeIndex(i, n, s)
	default:
		msg = fmt.Sprintf("%s, want an outcome: %s", jsonread.Shorten(string(bytes.TrimSpace(raw))), r.bm.outWant[i])
	}
	if msg != "" {
		return r.fault(line, field, "%s", msg)
	}
	r.row.outcomes[i] = o
	return nil
}

func (r *Reader) jsonObs(line int, raw json.RawMessage) error {
	bm := r.bm
	if !bm.named {
		return r.jsonOutcome(line, 0, raw)
	}
	kvs, err := r.jsonObject(line, "o.", raw)
	if err != nil {
		return err
	}
	set := make([]bool, len(bm.outN))
	for _, kv := range kvs {
		i, ok := bm.modIndex[kv.key]
		if !ok {
			return r.fault(line, "o."+kv.key, "%s", bm.unknownColumn("o_"+kv.key))
		}
		if err := r.jsonOutcome(line, i, kv.val); err != nil {
			return err
		}
		set[i] = true
	}
	for i, ok := range set {
		if !ok {
			return r.fault(line, r.jsonObsField(i), "missing")
		}
	}
	return nil
}

// jsonControl resolves the JSON value of controllable factor k.
func (r *Reader) jsonControl(line, k int, raw json.RawMessage) error {
	var kind actKind
	var c int
	var msg string
	text := ""
	switch jk, s, n := jsonScalar(raw); jk {
	case jsonNull:
	case jsonString:
		kind, c, msg = r.bm.control(k, s)
		text = s
	case jsonIndex:
		kind, c, msg = r.bm.controlIndex(k, n, s)
		text = s
	default:
		msg = fmt.Sprintf("%s, want a control: %s", jsonread.Shorten(string(bytes.TrimSpace(raw))), r.bm.ctlWant[k])
	}
	if msg != "" {
		return r.fault(line, r.jsonCtlField(k), "%s", msg)
	}
	r.kinds[k], r.ctls[r.bm.ctl[k]], r.texts[k] = kind, c, text
	return nil
}

func (r *Reader) jsonAct(line int, raw json.RawMessage) error {
	bm := r.bm
	for k := range r.kinds {
		r.kinds[k], r.texts[k] = actNone, ""
	}
	clear(r.ctls)
	kind, s, _ := jsonScalar(raw)
	if raw == nil || kind == jsonNull || (kind == jsonString && s == "") {
		return nil
	}
	if len(bm.ctl) == 0 {
		if t := bytes.TrimSpace(raw); string(t) == "{}" {
			return nil
		}
		return r.fault(line, "u", "%s, but the model has no controllable factor (want u absent)", jsonread.Shorten(string(bytes.TrimSpace(raw))))
	}
	if !bm.named {
		return r.jsonControl(line, 0, raw)
	}
	kvs, err := r.jsonObject(line, "u.", raw)
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		k, ok := bm.ctlIndex[kv.key]
		if !ok {
			return r.fault(line, "u."+kv.key, "%s", bm.unknownColumn("u_"+kv.key))
		}
		if err := r.jsonControl(line, k, kv.val); err != nil {
			return err
		}
	}
	return nil
}
