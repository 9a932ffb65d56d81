package behaviour

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzRead reads arbitrary input for one of four models (which, modulo
// 4: the T-maze of testdata, namedSingle, twoControls,
// ../pomdp/testdata/tiny-pomdp.json). It must never panic; its errors
// start with "behaviour: " and are one line; what it reads, written back
// by a Writer as CSV and as JSON lines, reads back the same.
func FuzzRead(f *testing.F) {
	tiny, err := pomdp.Load("../pomdp/testdata/tiny-pomdp.json")
	if err != nil {
		f.Fatal(err)
	}
	models := []*pomdp.Model{loadBehaviourTMaze(f), namedSingle(f), twoControls(f), tiny}

	// Small seeds keep every run, and the minimising of what it finds,
	// fast: the header and s01's first 4 trials of 3 rows (13 lines),
	// and the same cut inside a row.
	ref := readReference(f)
	cut := 0
	for range 13 {
		cut += bytes.IndexByte(ref[cut:], '\n') + 1
	}
	f.Add(ref[:cut], uint8(0))
	f.Add(ref[:cut-10], uint8(0))
	f.Add([]byte(tmazeHeader), uint8(0))
	f.Add([]byte(tmazeHeader+"s01,1,0,centre,none,cue-left,NA\ns01,1,1,1,2,0,\n"), uint8(0))
	f.Add([]byte(`{"subject":"s01","trial":1,"step":0,"o":{"location":"centre","reward":0,"cue":"cue-left"},"u":{"location":"go-cue"},"rt":0.41}`+"\n"+
		`{"subject":"s01","trial":1,"step":1,"o":{"location":"cue","reward":"none","cue":1},"u":null,"note":"a\r\nb"}`), uint8(0))
	f.Add([]byte("\uFEFFsubject,trial,step,o,u,rt\n\" a, \"\"b\"\"\",1,0,\"two, \"\"quoted\"\"\",0,x\n\" a, \"\"b\"\"\",1,1,1,,\n"), uint8(1))
	f.Add([]byte(`{"subject":"s","trial":2,"step":0,"o":"1","u":"NA"}`+"\n"+`{"subject":"s","trial":2,"step":1,"o":2}`), uint8(1))
	f.Add([]byte("subject,trial,step,o_light,u_hand,u_gaze\ns,1,0,dark,right,down\ns,1,1,1,NA,NA\ns,1,2,bright,,\n"), uint8(2))
	f.Add([]byte("step,o,u,subject,trial\r\n0,0,stay,a,1\r\n1,1,,a,1\r\n"), uint8(3))
	f.Add([]byte(tmazeHeader+"s01,1,0,cen\"tre,none,cue-left,\n"), uint8(0))
	f.Add([]byte(tmazeHeader+"s01,1,0,centre,none,cue-l\xffeft,\n"), uint8(0))

	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		m := models[int(which)%len(models)]
		recs, err := Read(bytes.NewReader(data), "fuzz", m)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "behaviour: fuzz") || strings.ContainsAny(msg, "\r\n") {
				t.Fatalf("error %q: want one line starting \"behaviour: fuzz\"", msg)
			}
			return
		}
		// JSON lines may name extra keys as they go: the last subject's
		// names hold every earlier subject's.
		var names []string
		for _, rec := range recs {
			names = rec.ExtraColumns
		}
		normaliseExtra(recs, names)
		crlf := false
		for _, rec := range recs {
			crlf = crlf || strings.Contains(rec.Subject, "\r\n")
			for _, tr := range rec.Trials {
				for _, row := range tr.Extra {
					for _, v := range row {
						crlf = crlf || strings.Contains(v, "\r\n")
					}
				}
			}
		}
		for _, name := range names {
			crlf = crlf || strings.Contains(name, "\r\n")
		}
		for _, jsonl := range []bool{false, true} {
			if (!jsonl && crlf) || (jsonl && (len(recs) == 0 || len(names) > MaxJSONExtra)) {
				// CSV turns \r\n into \n; JSON lines without a row are an
				// empty file, and hold at most MaxJSONExtra
				// extra keys.
				continue
			}
			out := writeAll(t, m, recs, &WriterOptions{JSONLines: jsonl, Extra: names})
			back, err := Read(bytes.NewReader(out), "written", m)
			if err != nil {
				t.Fatalf("JSON lines %v: reading back %q: %v", jsonl, out, err)
			}
			normaliseExtra(back, names)
			if sameRecords(recs, back) {
				continue
			}
			// cmp is slow: only for the message.
			if d := cmp.Diff(recs, back, ignoreLines, cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("JSON lines %v: round trip mismatch (-read +written and read):\n%s", jsonl, d)
			}
		}
	})
}

// normaliseExtra gives every record the extra columns names, and every
// row a value for each ("" where it had none).
func normaliseExtra(recs []SubjectRecord, names []string) {
	for i := range recs {
		rec := &recs[i]
		if len(names) == 0 {
			rec.ExtraColumns = nil
			continue
		}
		rec.ExtraColumns = names
		for j := range rec.Trials {
			tr := &rec.Trials[j]
			for len(tr.Extra) < len(tr.Obs) {
				tr.Extra = append(tr.Extra, nil)
			}
			for k, row := range tr.Extra {
				if len(row) < len(names) {
					tr.Extra[k] = append(append([]string(nil), row...), make([]string, len(names)-len(row))...)
				}
			}
		}
	}
}

// sameRecords reports whether a and b hold the same subjects, trials,
// observations, outcomes, actions and extra values (not lines).
func sameRecords(a, b []SubjectRecord) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Subject != y.Subject || !slices.Equal(x.ExtraColumns, y.ExtraColumns) || len(x.Trials) != len(y.Trials) {
			return false
		}
		for j := range x.Trials {
			s, t := &x.Trials[j], &y.Trials[j]
			if s.Trial != t.Trial || !slices.Equal(s.Obs, t.Obs) || !slices.Equal(s.Actions, t.Actions) ||
				!slices.EqualFunc(s.Outcomes, t.Outcomes, slices.Equal) || !slices.EqualFunc(s.Extra, t.Extra, slices.Equal) {
				return false
			}
		}
	}
	return true
}
