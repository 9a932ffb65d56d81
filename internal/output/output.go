// Package output holds what the arbor command writes the same way
// everywhere: numbers in JSON (a non-finite value is null), beliefs and
// learned concentrations keyed by factor and modality name, the names of
// actions and observations, the provenance line that begins a run's
// machine output, and the version. It also holds how the command writes
// safely: output files written whole or not at all (CreateFile), never
// over an input or another output (CheckDistinct, RecordInput) and put in
// place only when the command succeeds (BeginCommand, EndCommand), Graphviz
// run bounded and killable (Render), SIGINT and SIGTERM turned into a
// cancelled context (NotifyContext), standard output's first write error
// kept (ErrWriter) and long error lines cut (Shorten).
package output

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"

	"github.com/arbor-ai/arbor/pomdp"
)

// Version is arbor's version.
const Version = "0.5.0-dev"

// VersionText is what `arbor version` prints: the version, the Go release
// that built the binary and, when the build recorded it, the source
// revision.
func VersionText() string {
	s := "arbor " + Version + " (" + runtime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, kv := range bi.Settings {
			if kv.Key == "vcs.revision" && len(kv.Value) >= 12 {
				s += ", revision " + kv.Value[:12]
			}
			if kv.Key == "vcs.modified" && kv.Value == "true" {
				s += ", modified"
			}
		}
	}
	return s + ")"
}

// Float is a JSON number; a non-finite value (an infinite cost when the
// preferences put zero mass on a reachable outcome, the log of a zero
// probability) is written as null, which JSON can represent and
// encoding/json's float64 cannot.
type Float float64

// MarshalJSON writes f as encoding/json writes a float64, or null.
func (f Float) MarshalJSON() ([]byte, error) { return AppendFloat(nil, float64(f)), nil }

// Floats converts x for JSON.
func Floats(x []float64) []Float {
	if x == nil {
		return nil
	}
	out := make([]Float, len(x))
	for i, v := range x {
		out[i] = Float(v)
	}
	return out
}

// AppendFloat appends v formatted as encoding/json formats a float64
// (shortest representation; exponent form below 1e-6 and from 1e21 on,
// with a two-digit minimum exponent: 1e-07 becomes 1e-7), or null when v
// is NaN or infinite.
func AppendFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	abs := math.Abs(v)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// AppendFloats appends x as a JSON array (AppendFloat).
func AppendFloats(b []byte, x []float64) []byte {
	b = append(b, '[')
	for i, v := range x {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendFloat(b, v)
	}
	return append(b, ']')
}

// Ordered is a JSON object whose keys keep their order.
type Ordered struct {
	Keys   []string
	Values []any
}

// Add appends a key and its value.
func (o *Ordered) Add(key string, v any) { o.Keys, o.Values = append(o.Keys, key), append(o.Values, v) }

// MarshalJSON writes the object with its keys in order.
func (o Ordered) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, k := range o.Keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, k)
		b = append(b, ':')
		v, err := json.Marshal(o.Values[i])
		if err != nil {
			return nil, err
		}
		b = append(b, v...)
	}
	return append(b, '}'), nil
}

// Belief is a belief over states for JSON: a vector, or for a factorised
// file an object keyed by factor name (in factor order).
func Belief(m *pomdp.Model, q []float64) any {
	if !m.Factorised() {
		return Floats(q)
	}
	var o Ordered
	for f := range m.NumFactors() {
		off := m.FactorOffset(f)
		o.Add(m.FactorName(f), Floats(q[off:off+m.FactorSize(f)]))
	}
	return o
}

// Prediction is Belief for a prediction over observations (the
// concatenated per-modality vectors of length Model.ObsLen), keyed by
// modality name.
func Prediction(m *pomdp.Model, q []float64) any {
	if !m.Factorised() {
		return Floats(q)
	}
	var o Ordered
	for i := range m.NumModalities() {
		off := m.ObsOffset(i)
		o.Add(m.ModalityName(i), Floats(q[off:off+m.ModalitySize(i)]))
	}
	return o
}

// Observations is the "observations" of a record: the indices, or for a
// factorised model one list of outcome indices (in modality order) per
// step.
func Observations(m *pomdp.Model, obs []int) any {
	if !m.Factorised() {
		return obs
	}
	out := make([][]int, len(obs))
	for i, o := range obs {
		out[i] = m.DecodeObs(nil, o)
	}
	return out
}

// ObservationNames is the "observation_names" of a record: each
// observation's name, or for a factorised model the list of its outcomes'
// names (in modality order).
func ObservationNames(m *pomdp.Model, obs []int) any {
	if !m.Factorised() {
		out := make([]string, len(obs))
		for i, o := range obs {
			out[i] = m.ObsName(o)
		}
		return out
	}
	out := make([][]string, len(obs))
	var outs []int
	for i, o := range obs {
		outs = m.DecodeObs(outs, o)
		out[i] = make([]string, len(outs))
		for k, x := range outs {
			out[i][k] = m.OutcomeName(k, x)
		}
	}
	return out
}

// ActionNames returns the names of the actions (joint actions of a
// factorised model, their controls joined by "+").
func ActionNames(m *pomdp.Model, actions []int) []string {
	out := make([]string, len(actions))
	for i, u := range actions {
		out[i] = m.ActionName(u)
	}
	return out
}

// Concentrations is the JSON form of learned concentrations (nil for
// nil): for a single-factor file {"a": a[o][s], "b": b[u][next][prev], "d":
// d[s]} with the parameters that are learned; for a factorised file
// {"factors": {name: {"b", "d"}}, "modalities": {name: {"a"}}}, in the
// shapes of the model file, with the factors and modalities that learn.
func Concentrations(m *pomdp.Model, c *pomdp.Concentrations) any {
	if c == nil || !c.Learned() {
		return nil
	}
	aShape := func(i int) []int {
		sh := []int{m.ModalitySize(i)}
		for _, f := range m.DependsOn(i) {
			sh = append(sh, m.FactorSize(f))
		}
		return sh
	}
	bShape := func(f int) []int { return []int{m.FactorControls(f), m.FactorSize(f), m.FactorSize(f)} }
	if !m.Factorised() {
		var o Ordered
		if c.A[0] != nil {
			o.Add("a", Nest(c.A[0], aShape(0)))
		}
		if c.B[0] != nil {
			o.Add("b", Nest(c.B[0], bShape(0)))
		}
		if c.D[0] != nil {
			o.Add("d", Floats(c.D[0]))
		}
		return o
	}
	var fs, ms Ordered
	for f := range m.NumFactors() {
		var o Ordered
		if c.B[f] != nil {
			o.Add("b", Nest(c.B[f], bShape(f)))
		}
		if c.D[f] != nil {
			o.Add("d", Floats(c.D[f]))
		}
		if len(o.Keys) > 0 {
			fs.Add(m.FactorName(f), o)
		}
	}
	for i := range m.NumModalities() {
		if c.A[i] != nil {
			ms.Add(m.ModalityName(i), Ordered{Keys: []string{"a"}, Values: []any{Nest(c.A[i], aShape(i))}})
		}
	}
	return Ordered{Keys: []string{"factors", "modalities"}, Values: []any{fs, ms}}
}

// Nest returns the row-major flat x as nested JSON arrays of shape sh.
func Nest(x []float64, sh []int) any {
	if len(sh) <= 1 {
		return Floats(x)
	}
	n := len(x) / sh[0]
	out := make([]any, sh[0])
	for i := range out {
		out[i] = Nest(x[i*n:(i+1)*n], sh[1:])
	}
	return out
}

// File names a file a run read, with its SHA-256.
type File struct {
	Flag   string `json:"flag"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256,omitempty"`
}

// Hash is an io.Writer that hashes what it is given (with io.TeeReader, a
// file's SHA-256 as it is read).
type Hash struct{ h hash.Hash }

// NewHash returns a SHA-256 hash.
func NewHash() *Hash { return &Hash{sha256.New()} }

func (h *Hash) Write(p []byte) (int, error) { return h.h.Write(p) }

// Sum returns the hex SHA-256 of what was written.
func (h *Hash) Sum() string { return hex.EncodeToString(h.h.Sum(nil)) }

// HashFile returns the File of path read for flag. A file that cannot be
// read twice (a pipe, a device) has no SHA-256 here: its reader hashes what
// it reads (Hash).
func HashFile(flag, path string) (File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return File{}, err
	}
	if !st.Mode().IsRegular() {
		return File{Flag: flag, Path: path}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return File{}, fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return File{Flag: flag, Path: path, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// Provenance is the first line of a run's machine output: what made it,
// from which files, with which settings (every flag, given or default) and,
// where flags combine into options (a preset and the flags that override
// it), the options the run used.
type Provenance struct {
	// Record names the kind of line where an output mixes several (fit
	// --json: "provenance"); empty and left out elsewhere.
	Record   string  `json:"record,omitempty"`
	Arbor    string  `json:"arbor"`
	Command  string  `json:"command"`
	Files    []File  `json:"files"`
	Settings Ordered `json:"settings"`
	Resolved any     `json:"resolved,omitempty"`
}

// name returns s as a JSON value: a number when it is a decimal index (an
// unnamed entry), else the string.
func name(s string) any {
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && strconv.Itoa(n) == s {
		return n
	}
	return s
}

// ObsKeys is an observation in the recorded-behaviour JSON lines: the
// outcome's name (its index when unnamed), or for a factorised model an
// object keyed by modality name.
func ObsKeys(m *pomdp.Model, obs int) any {
	if !m.Factorised() {
		return name(m.ObsName(obs))
	}
	var o Ordered
	for i, x := range m.DecodeObs(nil, obs) {
		o.Add(m.ModalityName(i), name(m.OutcomeName(i, x)))
	}
	return o
}

// ActionKeys is an action in the recorded-behaviour JSON lines: nil on a
// trial's last step, "NA" for a missed response, else the control's name
// (its index when unnamed), or for a factorised model an object keyed by
// controllable factor name.
func ActionKeys(m *pomdp.Model, action int, missed, last bool) any {
	if last {
		return nil
	}
	if !m.Factorised() {
		if missed {
			return "NA"
		}
		return name(m.ActionName(action))
	}
	var o Ordered
	var ctrl []int
	if !missed {
		ctrl = m.DecodeAction(nil, action)
	}
	for f := range m.NumFactors() {
		if m.FactorControls(f) <= 1 || m.ControlOwner(f) != f {
			continue
		}
		if missed {
			o.Add(m.FactorName(f), "NA")
		} else {
			o.Add(m.FactorName(f), name(m.ControlName(f, ctrl[f])))
		}
	}
	return o
}

// TrueState is an episode's true initial hidden state (agent.Episode's
// TrueState, a state index per factor of m) in a record: the state's name
// (its index when unnamed), or for a factorised model an object keyed by
// factor name; nil without a state or a model (an environment with a
// native state of its own, as dSprites' initial_state).
func TrueState(m *pomdp.Model, s []int) any {
	if m == nil || len(s) != m.NumFactors() {
		return nil
	}
	texts := StateTexts(m, s)
	if !m.Factorised() {
		return name(texts[0])
	}
	var o Ordered
	for f, t := range texts {
		o.Add(m.FactorName(f), name(t))
	}
	return o
}

// StateColumns names the true-state columns of a behaviour CSV: s_<factor>
// for each factor of m, or s for a single-factor model (the o and u of its
// other columns).
func StateColumns(m *pomdp.Model) []string {
	if !m.Factorised() {
		return []string{"s"}
	}
	cols := make([]string, m.NumFactors())
	for f := range cols {
		cols[f] = "s_" + m.FactorName(f)
	}
	return cols
}

// StateTexts returns the name of each factor's state s[f] (its index when
// unnamed), in the order of StateColumns.
func StateTexts(m *pomdp.Model, s []int) []string {
	if !m.Factorised() {
		return []string{m.StateName(s[0])}
	}
	texts := make([]string, len(s))
	for f, x := range s {
		texts[f] = m.FactorStateName(f, x)
	}
	return texts
}

// CSVFloat writes v in a CSV cell: the shortest text that reads back the
// same number (AppendFloat), NA when v is NaN or infinite.
func CSVFloat(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "NA"
	}
	return string(AppendFloat(nil, v))
}

// BeliefColumns names the belief columns of --beliefs: q_<factor>_<state>
// (q_<state> for a single-factor model).
func BeliefColumns(m *pomdp.Model) []string {
	var cols []string
	for f := range m.NumFactors() {
		for s := range m.FactorSize(f) {
			if m.Factorised() {
				cols = append(cols, "q_"+m.FactorName(f)+"_"+m.FactorStateName(f, s))
			} else {
				cols = append(cols, "q_"+m.StateName(s))
			}
		}
	}
	return cols
}
