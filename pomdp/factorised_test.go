package pomdp

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func loadTMaze(t testing.TB) *Model {
	t.Helper()
	m, err := Load("testdata/factorised-tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestFactorisedSizes: the T-maze file has 2 factors (4 and 2 states), 3
// modalities (4, 3, 3 outcomes), 4 × 1 joint actions and 4·3·3 = 36
// observation indices; a belief has 4 + 2 entries.
func TestFactorisedSizes(t *testing.T) {
	m := loadTMaze(t)
	if !m.Factorised() || m.NumFactors() != 2 || m.NumModalities() != 3 {
		t.Fatalf("factorised %v, %d factors, %d modalities", m.Factorised(), m.NumFactors(), m.NumModalities())
	}
	if m.NumStates() != 6 || m.NumActions() != 4 || m.NumObs() != 36 {
		t.Errorf("sizes: %d belief entries, %d actions, %d observations; want 6, 4, 36", m.NumStates(), m.NumActions(), m.NumObs())
	}
	if m.FactorOffset(1) != 4 || m.FactorControls(1) != 1 || m.ModalitySize(1) != 3 {
		t.Errorf("offset %d, controls %d, outcomes %d", m.FactorOffset(1), m.FactorControls(1), m.ModalitySize(1))
	}
	if got := m.DependsOn(2); !cmp.Equal(got, []int{0, 1}) {
		t.Errorf("reward depends on %v, want [0 1]", got)
	}
	// Step work: 4² + 2² for B, 4·4 + 3·8 + 3·8 for A.
	if got := m.StepWork(); got != 16+4+16+24+24 {
		t.Errorf("StepWork %v, want 84", got)
	}
	o, err := m.EncodeObs([]int{1, 2, 0})
	if err != nil {
		t.Fatal(err)
	}
	if o != 1*9+2*3+0 || !cmp.Equal(m.DecodeObs(nil, o), []int{1, 2, 0}) {
		t.Errorf("EncodeObs(1,2,0) = %d, want 15 and back", o)
	}
	if got := m.ObsName(o); got != "cue+cue-right+none" {
		t.Errorf("ObsName = %q", got)
	}
	if got := m.ActionName(2); got != "go-left" {
		t.Errorf("ActionName(2) = %q, want go-left (the context is not controllable)", got)
	}
	if got := m.StateName(5); got != "context:reward-right" {
		t.Errorf("StateName(5) = %q", got)
	}
	if _, err := m.EncodeObs([]int{0, 3, 0}); err == nil || !strings.Contains(err.Error(), `modality "cue"`) {
		t.Errorf("EncodeObs out of range: %v", err)
	}
}

// TestFactorisedJSONRoundTrip: FactorisedSpec → MarshalJSON → Parse gives
// the same description, for the T-maze and for a model with concentrations
// and state preferences.
func TestFactorisedJSONRoundTrip(t *testing.T) {
	m := loadTMaze(t)
	fs := m.FactorisedSpec()
	fs.Factors[0].CStates = []float64{0.1, 0.2, 0.3, 0.4}
	fs.Modalities[1].ConcA = make([]float64, len(fs.Modalities[1].A))
	for i := range fs.Modalities[1].ConcA {
		fs.Modalities[1].ConcA[i] = 1 + float64(i)
	}
	fs.Factors[0].ConcB = make([]float64, len(fs.Factors[0].B))
	for i := range fs.Factors[0].ConcB {
		fs.Factors[0].ConcB[i] = 0.5 + float64(i%3)
	}
	m2, err := NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(m2.FactorisedSpec())
	if err != nil {
		t.Fatal(err)
	}
	m3, err := Parse(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if d := cmp.Diff(m2.FactorisedSpec(), m3.FactorisedSpec()); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}

// TestSingleFactorSpellings: the single-factor file and its factorised
// spelling give bit-identical posteriors, propagations and step costs.
func TestSingleFactorSpellings(t *testing.T) {
	m, err := Load("testdata/tiny-pomdp-a.json")
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(m.FactorisedSpec())
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Factorised() || f.NumStates() != m.NumStates() || f.NumObs() != m.NumObs() || f.NumActions() != m.NumActions() {
		t.Fatal("sizes differ")
	}
	for o := range m.NumObs() {
		a, errA := StatePosterior(nil, m, o)
		b, errB := StatePosterior(nil, f, o)
		if (errA == nil) != (errB == nil) || !cmp.Equal(a, b) {
			t.Fatalf("obs %d: posterior %v (%v), factorised %v (%v)", o, a, errA, b, errB)
		}
		if errA != nil {
			continue
		}
		na, nb := make([]float64, len(a)), make([]float64, len(b))
		for u := range m.NumActions() {
			Propagate(m, na, a, u)
			Propagate(f, nb, b, u)
			r1, a1, n1 := StepCost(m, na, m.NoveltyWeights())
			r2, a2, n2 := StepCost(f, nb, f.NoveltyWeights())
			if !cmp.Equal(na, nb) || r1 != r2 || a1 != a2 || n1 != n2 {
				t.Fatalf("obs %d action %d: (%v %v %v %v), factorised (%v %v %v %v)", o, u, na, r1, a1, n1, nb, r2, a2, n2)
			}
		}
	}
}

// TestFactorisedPosteriorBruteForce: StatePosterior's marginals equal the
// joint P(s) ∝ Π_f D_f(s_f) Π_m A_m(o_m | s) enumerated here, on the
// T-maze (cue-right at the cue) and on a random 3-factor model.
func TestFactorisedPosteriorBruteForce(t *testing.T) {
	m := loadTMaze(t)
	fs := m.FactorisedSpec()
	fs.Factors[0].D = []float64{0.1, 0.6, 0.2, 0.1}
	fs.Factors[1].D, fs.Factors[1].ConcD = []float64{0.3, 0.7}, nil
	m, err := NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	obs, _ := m.EncodeObs([]int{1, 2, 0})
	got, err := StatePosterior(nil, m, obs)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: only location = cue can emit where = cue; then the cue
	// says right: P(ctx) ∝ (0.3·0.05, 0.7·0.95) = (0.015, 0.665).
	want := []float64{0, 1, 0, 0, 0.015 / 0.68, 0.665 / 0.68}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("q_s = %v, want %v", got, want)
			break
		}
	}
	if _, err := StatePosterior(nil, m, 0); err == nil || !strings.Contains(err.Error(), "probability 0") {
		// where = start with D(start) = 0.1 is possible; cue = none too.
		if err != nil {
			t.Errorf("obs 0: %v", err)
		}
	}
}

// TestFactorisedErrors: every fault of a factorised description is one
// line naming the factor or modality and the field.
func TestFactorisedErrors(t *testing.T) {
	base, err := os.ReadFile("testdata/factorised-tmaze.json")
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(map[string]any)) []byte {
		var v map[string]any
		if err := json.Unmarshal(base, &v); err != nil {
			t.Fatal(err)
		}
		f(v)
		out, _ := json.Marshal(v)
		return out
	}
	fac := func(v map[string]any, i int) map[string]any { return v["factors"].([]any)[i].(map[string]any) }
	mod := func(v map[string]any, i int) map[string]any { return v["modalities"].([]any)[i].(map[string]any) }
	tests := []struct {
		name string
		data []byte
		want []string
	}{
		{"unknown factor", edit(func(v map[string]any) { mod(v, 1)["depends_on"] = []any{"location", "contxt"} }),
			[]string{`modality "cue"`, `depends_on[1]`, `unknown factor "contxt"`}},
		{"factor twice", edit(func(v map[string]any) { mod(v, 1)["depends_on"] = []any{"location", "location"} }),
			[]string{`modality "cue"`, `listed twice`}},
		{"A shape", edit(func(v map[string]any) { mod(v, 2)["A"].([]any)[1].([]any)[2] = []any{1, 0, 0} }),
			[]string{`modality "reward"`, `A[1][2]: 3 entries, want 2`, `[outcome][location][context]`}},
		{"A column", edit(func(v map[string]any) { mod(v, 1)["A"].([]any)[1].([]any)[1].([]any)[0] = 0.5 }),
			[]string{`modality "cue"`, `A: column [:][1][0] sums to 0.55`}},
		{"C and log_C", edit(func(v map[string]any) { mod(v, 2)["C"] = []any{0.2, 0.7, 0.1} }),
			[]string{`modality "reward"`, `C and log_C: both given`}},
		{"uncontrolled with several B", edit(func(v map[string]any) {
			fac(v, 1)["B"] = []any{[]any{[]any{1, 0}, []any{0, 1}}, []any{[]any{1, 0}, []any{0, 1}}}
		}), []string{`factor "context"`, `2 matrices for a factor without controls`}},
		{"controls and B disagree", edit(func(v map[string]any) { fac(v, 0)["controls"] = []any{"a", "b"} }),
			[]string{`factor "location"`, `B: 4 matrices, want 2`}},
		{"duplicate factor", edit(func(v map[string]any) { fac(v, 1)["name"] = "location" }),
			[]string{`factors[1]: name: duplicate "location"`}},
		{"missing name", edit(func(v map[string]any) { delete(mod(v, 0), "name") }),
			[]string{`modalities[0]: name: missing`}},
		{"unknown key", edit(func(v map[string]any) { fac(v, 0)["Bee"] = 1 }),
			[]string{`factor "location"`, `unknown field "Bee"`}},
		{"mixed spellings", edit(func(v map[string]any) { v["A"] = []any{} }),
			[]string{`unknown field "A"`, `only factors, modalities and preferences`}},
		{"no modalities", edit(func(v map[string]any) { delete(v, "modalities") }),
			[]string{`modalities: missing`}},
		{"D length", edit(func(v map[string]any) { fac(v, 0)["D"] = []any{1, 0} }),
			[]string{`factor "location"`, `D: 2 entries, want 4`}},
		{"outcome names", edit(func(v map[string]any) { mod(v, 0)["outcomes"] = []any{"a"} }),
			[]string{`modality "where"`, `outcomes: 1 names, want 4`}},
		{"null log_C", edit(func(v map[string]any) { mod(v, 2)["log_C"] = []any{0, nil, 1} }),
			[]string{`modality "reward"`, `log_C[1]: null`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Parse(tc.data)
			if err == nil {
				t.Fatalf("accepted: %v", m)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("multi-line error %q", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
		})
	}
}

// TestFactorisedPastSeparable: when every modality depends on one factor,
// the posterior factorises over the factors, so mean-field VMP over the
// past is exact: after the first observation Q(S_0) equals StatePosterior.
// After steps, the per-factor chains stay independent: each factor's
// marginal equals that of a single-factor past of the factor alone (same
// observations of its modality, same controls).
func TestFactorisedPastSeparable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	col := func(k, n, lead int) []float64 {
		x := make([]float64, lead*k*n)
		for l := range lead {
			for j := range n {
				s := 0.0
				for i := range k {
					x[(l*k+i)*n+j] = 0.1 + rng.Float64()
					s += x[(l*k+i)*n+j]
				}
				for i := range k {
					x[(l*k+i)*n+j] /= s
				}
			}
		}
		return x
	}
	fs := FactorisedSpec{
		Factors: []Factor{
			{Name: "x", NumStates: 3, Controls: []string{"a", "b"}, B: col(3, 3, 2), D: col(3, 1, 1)},
			{Name: "y", NumStates: 2, B: col(2, 2, 1), D: col(2, 1, 1)},
		},
		Modalities: []Modality{
			{Name: "ox", NumOutcomes: 2, DependsOn: []string{"x"}, A: col(2, 3, 1)},
			{Name: "oy", NumOutcomes: 3, DependsOn: []string{"y"}, A: col(3, 2, 1)},
		},
	}
	m, err := NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	single := func(f int, md int) *Model {
		ff, mm := fs.Factors[f], fs.Modalities[md]
		nu := max(1, len(ff.Controls))
		s, err := New(Spec{NumStates: ff.NumStates, NumObs: mm.NumOutcomes, NumActions: nu, A: mm.A, B: ff.B, D: ff.D,
			C: uniform(mm.NumOutcomes)})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	mx, my := single(0, 0), single(1, 1)
	p, _ := NewPast(m, 0)
	px, _ := NewPast(mx, 0)
	py, _ := NewPast(my, 0)
	obs := [][]int{{1, 2}, {0, 0}, {1, 1}}
	acts := []int{1, 0}
	for t0, o := range obs {
		code, _ := m.EncodeObs(o)
		if t0 == 0 {
			if err := p.Reset(code); err != nil {
				t.Fatal(err)
			}
			_ = px.Reset(o[0])
			_ = py.Reset(o[1])
			exact, err := StatePosterior(nil, m, code)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Infer(context.Background(), pastSettings); err != nil {
				t.Fatal(err)
			}
			for i, v := range p.Belief() {
				if math.Abs(v-exact[i]) > 1e-12 {
					t.Fatalf("Q(S_0) = %v, exact %v", p.Belief(), exact)
				}
			}
			continue
		}
		if err := p.Grow(acts[t0-1], code); err != nil {
			t.Fatal(err)
		}
		_ = px.Grow(acts[t0-1], o[0])
		_ = py.Grow(0, o[1])
	}
	for _, q := range []*Past{p, px, py} {
		if _, err := q.Infer(context.Background(), pastSettings); err != nil {
			t.Fatal(err)
		}
	}
	want := append(px.Belief(), py.Belief()...)
	got := p.Belief()
	for i := range want {
		// Both are fixed points of the same mean-field equations, reached by
		// different schedules that stop when F changes by < 1e-12: they
		// agree to the convergence error, about 1e-9 here.
		if math.Abs(got[i]-want[i]) > 1e-7 {
			t.Fatalf("Q(S_2) = %v, separate pasts %v", got, want)
		}
	}
}

func uniform(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = 1 / float64(n)
	}
	return x
}

// TestFactorisedPastLearnsAndFolds: a factorised past with a window of 2
// and learned a (over two factors), b and d runs a 6-step episode: it keeps
// 2 steps, the Dirichlet posteriors grow by the folded counts (total count
// of d grows by 1 per episode, of b by 1 per transition), and the expected
// model stays a valid model.
func TestFactorisedPastLearnsAndFolds(t *testing.T) {
	m := loadTMaze(t)
	fs := m.FactorisedSpec()
	fs.Factors[0].ConcB = make([]float64, len(fs.Factors[0].B))
	for i, b := range fs.Factors[0].B {
		fs.Factors[0].ConcB[i] = 0.1 + 10*b
	}
	fs.Modalities[1].ConcA = make([]float64, len(fs.Modalities[1].A))
	for i, a := range fs.Modalities[1].A {
		fs.Modalities[1].ConcA[i] = 0.5 + 20*a
	}
	m, err := NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPast(m, 2)
	if err != nil {
		t.Fatal(err)
	}
	o0, _ := m.EncodeObs([]int{0, 0, 0})
	o1, _ := m.EncodeObs([]int{1, 1, 0})
	o2, _ := m.EncodeObs([]int{2, 0, 1})
	if err := p.Reset(o0); err != nil {
		t.Fatal(err)
	}
	steps := []struct{ u, o int }{{1, o1}, {2, o2}, {2, o2}, {2, o2}, {2, o2}}
	for _, st := range steps {
		if err := p.Grow(st.u, st.o); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Infer(context.Background(), pastSettings); err != nil {
			t.Fatal(err)
		}
	}
	if p.Kept() != 2 || p.Time() != 5 {
		t.Errorf("kept %d at time %d, want 2 at 5", p.Kept(), p.Time())
	}
	sum := func(x []float64) float64 {
		s := 0.0
		for _, v := range x {
			s += v
		}
		return s
	}
	p.CarryOver()
	em, err := p.ExpectedModel()
	if err != nil {
		t.Fatal(err)
	}
	efs := em.FactorisedSpec()
	// Five transitions of the location factor: its b total grows by 5; the
	// context's d by 1 (Q(S_0) of one episode); the cue's a by 6 (one
	// outcome per step).
	if got, want := sum(efs.Factors[0].ConcB), sum(fs.Factors[0].ConcB)+5; math.Abs(got-want) > 1e-9 {
		t.Errorf("sum of b = %v, want %v", got, want)
	}
	if got, want := sum(efs.Factors[1].ConcD), 3.0; math.Abs(got-want) > 1e-9 {
		t.Errorf("sum of d = %v, want %v", got, want)
	}
	if got, want := sum(efs.Modalities[1].ConcA), sum(fs.Modalities[1].ConcA)+6; math.Abs(got-want) > 1e-9 {
		t.Errorf("sum of a = %v, want %v", got, want)
	}
	if _, err := NewFactorised(efs); err != nil {
		t.Errorf("expected model: %v", err)
	}
}

// FuzzParseFactorised: any input to Parse seeded with factorised files
// gives a model or a one-line error, never a panic; an accepted model
// round-trips through MarshalJSON and runs a short past.
func FuzzParseFactorised(f *testing.F) {
	base, err := os.ReadFile("testdata/factorised-tmaze.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(base)
	f.Add([]byte(`{"factors": [{"name": "x", "B": [[[1]]], "D": [1]}], "modalities": [{"name": "o", "depends_on": ["x"], "A": [[1]]}]}`))
	f.Add([]byte(`{"factors": [{"name": "x", "controls": ["a", "b"], "b": [[[1, 1], [1, 1]], [[2, 1], [1, 2]]], "d": [1, 1]},
	  {"name": "y", "B": [[[0.5, 0.5], [0.5, 0.5]]], "D": [0.5, 0.5]}],
	  "modalities": [{"name": "o", "depends_on": ["y", "x"], "a": [[[1, 2], [3, 4]], [[1, 1], [1, 1]]], "log_C": [0, -3]}]}`))
	f.Add([]byte(`{"factors": [], "modalities": []}`))
	f.Add([]byte(`{"factors": [{"name": "x", "controls": ["a", "b"], "B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "D": [0.5, 0.5]},
	  {"name": "y", "controls_of": "x", "B": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "D": [0.5, 0.5]}],
	  "modalities": [{"name": "o", "depends_on": ["x"], "A": [[0.9, 0.1], [0.1, 0.9]]}, {"name": "p", "depends_on": ["y"], "A": [[1, 0], [0, 1]]}],
	  "preferences": [{"modalities": ["p", "o"], "log_C": [[0, 0], [0, 5]]}]}`))
	f.Add([]byte(`{"factors": [{"name": "x", "B": [[[1]]], "D": [1]}], "modalities": [{"name": "o", "depends_on": ["x", "x"], "A": [[[1]]]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data)
		if err != nil {
			if msg := err.Error(); len(msg) >= 300 || strings.Contains(msg, "\n") {
				t.Fatalf("error of %d bytes (want one line < 300): %.400q", len(msg), msg)
			}
			return
		}
		out, err := json.Marshal(m.FactorisedSpec())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(out); err != nil {
			t.Fatalf("round trip: %v", err)
		}
		if m.NumObs() > 256 || m.NumActions() > 16 || m.StepWork() > 1e4 {
			return
		}
		p, err := NewPast(m, 2)
		if err != nil {
			t.Fatal(err)
		}
		for o := range m.NumObs() {
			if _, err := StatePosterior(nil, m, o); err != nil {
				continue
			}
			if p.Reset(o) != nil || p.Grow(m.NumActions()-1, o) != nil || p.Grow(0, o) != nil {
				t.Fatal("past refused a valid observation")
			}
			_, _ = p.Infer(context.Background(), pastSettings)
			_, _ = p.ExpectedModel()
			break
		}
	})
}

// TestMeanFieldPosteriorSeparable: beyond MaxJointStates (17 binary
// factors, 2^17 joint states) StatePosterior is the mean-field fixed
// point, which is exact when every modality depends on one factor: factor
// f seeing outcome 0 of A = [[0.9, 0.2], [0.1, 0.8]] under D = (0.5, 0.5)
// has posterior (0.45, 0.1)/0.55. A modality that cannot emit its outcome
// is refused.
func TestMeanFieldPosteriorSeparable(t *testing.T) {
	var fs FactorisedSpec
	for f := range 17 {
		name := string(rune('a' + f))
		fs.Factors = append(fs.Factors, Factor{Name: name, NumStates: 2, B: []float64{1, 0, 0, 1}, D: []float64{0.5, 0.5}})
		fs.Modalities = append(fs.Modalities, Modality{Name: name, NumOutcomes: 2, DependsOn: []string{name}, A: []float64{0.9, 0.2, 0.1, 0.8}})
	}
	// One more modality over two factors that never emits outcome 1.
	fs.Modalities = append(fs.Modalities, Modality{Name: "never", NumOutcomes: 2, DependsOn: []string{"a", "b"}, A: []float64{1, 1, 1, 1, 0, 0, 0, 0}})
	m, err := NewFactorised(fs)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int, 18)
	obs, _ := m.EncodeObs(out)
	q, err := StatePosterior(nil, m, obs)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(q); i += 2 {
		if math.Abs(q[i]-0.45/0.55) > 1e-14 || math.Abs(q[i+1]-0.1/0.55) > 1e-14 {
			t.Fatalf("factor %d: %v, want (%v, %v)", i/2, q[i:i+2], 0.45/0.55, 0.1/0.55)
		}
	}
	out[17] = 1
	obs, _ = m.EncodeObs(out)
	if _, err := StatePosterior(nil, m, obs); err == nil || !strings.Contains(err.Error(), `modality "never"`) {
		t.Errorf("impossible outcome: %v", err)
	}
}
