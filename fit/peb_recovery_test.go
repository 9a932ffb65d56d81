package fit_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/agent"
	"github.com/arbor-ai/arbor/behaviour"
	"github.com/arbor-ai/arbor/fit"
	"github.com/arbor-ai/arbor/pomdp"
)

// groupStudy is one simulated study of the group design: the T-maze with
// learning (examples/fit/tmaze-learn.json, in the world of
// examples/behaviour/world-right.json; horizon 2, two steps, γ = 1,
// sampled choices), 60 subjects in two groups of 30 assigned at random,
// ln α_i = 0.5 + effect·group_i + N(0, 0.3²), η at its default.
type groupStudy struct {
	truth []float64 // ln α per subject
	first []float64 // the first-level estimates of ln α
	peb   *fit.PEBResult
}

func runGroupStudy(t *testing.T, m, world *pomdp.Model, seed uint64, effect float64, trials int) groupStudy {
	t.Helper()
	const n = 60
	rng := rand.New(rand.NewPCG(seed, 36))
	group := make([]int, n)
	for i := n / 2; i < n; i++ {
		group[i] = 1
	}
	rng.Shuffle(n, func(i, j int) { group[i], group[j] = group[j], group[i] })
	var st groupStudy
	values := make([]map[string]float64, n)
	for i := range n {
		st.truth = append(st.truth, 0.5+effect*float64(group[i])+0.3*rng.NormFloat64())
		values[i] = map[string]float64{agent.ParamAlpha: math.Exp(st.truth[i])}
	}
	sampler := aci.Factory{Options: aci.AgentOptions{Horizon: 2, Gamma: 1, Select: aci.SelectSample}}
	recs := make([]behaviour.SubjectRecord, n)
	ctx := context.Background()
	for k, v := range values {
		ag, err := sampler.NewAgent(m, v)
		if err != nil {
			t.Fatal(err)
		}
		recs[k].Subject = subjectName(k)
		for i := range trials {
			env := pomdp.NewProcess(world, agent.WorldRand(seed, k*trials+i))
			ep, err := agent.RunEpisode(ctx, ag, env, &agent.EpisodeSettings{MaxSteps: 2, Seed: seed, Agent: k, Trial: i})
			if err != nil {
				t.Fatal(err)
			}
			obs := ep.Observations()
			recs[k].Trials = append(recs[k].Trials, behaviour.TrialRecord{Trial: i + 1, Obs: obs, Actions: ep.Actions(), Lines: make([]int, len(obs))})
		}
	}
	// The covariates file with its rows in a random order.
	rows := make([]string, n)
	for i := range n {
		rows[i] = fmt.Sprintf("%s,%d\n", subjectName(i), group[i])
	}
	rng.Shuffle(n, func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	cov, err := fit.ReadCovariates(strings.NewReader("subject,group\n"+strings.Join(rows, "")), "cov.csv")
	if err != nil {
		t.Fatal(err)
	}
	formula, err := fit.ParseFormula("1 + group")
	if err != nil {
		t.Fatal(err)
	}
	subjects := make([]string, n)
	for i := range recs {
		subjects[i] = recs[i].Subject
	}
	design, err := fit.NewDesign(formula, cov, subjects)
	if err != nil {
		t.Fatal(err)
	}
	// As `aci fit ... --free alpha --prior alpha=0,1 --group --jobs 2`.
	prior := fit.Prior{Mean: 0, SD: 1}
	set := &fit.Settings{Free: []string{agent.ParamAlpha}, Priors: map[string]fit.Prior{agent.ParamAlpha: prior}, Seed: seed, Jobs: 2}
	results := make([]*fit.Result, n)
	if err := fit.Subjects(ctx, aci.Factory{Options: aci.AgentOptions{Horizon: 2, Gamma: 1}}, m, recs, set, func(r *fit.Result) error {
		results[r.Index] = r
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	post, err := fit.GroupPosteriors(results)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		st.first = append(st.first, r.Params[0].Theta)
	}
	if st.peb, err = fit.PEB(post, set.Free, []fit.Prior{prior}, design, nil); err != nil {
		t.Fatal(err)
	}
	if !st.peb.Converged {
		t.Errorf("study %d: the group level did not converge: %s", seed, st.peb.Reason)
	}
	return st
}

// TestPEBRecovery: 10 studies with a group effect of 0.6 on ln α and 10
// without, 30 trials per subject, fitted as `aci fit --free alpha --prior
// alpha=0,1 --group --design "1 + group"` would: the mean of β_group over
// the studies is within 0.1 of 0.6, its 90% interval covers 0.6 in at
// least 7 of 10, its probability of being non-zero is above 0.95 in at
// least 8 of 10 and, on the null studies, below 0.5 in at least 8 of 10;
// the mean of √Σ over the 20 studies lies in [0.15, 0.45] (true 0.3). At 8
// trials per subject (10 studies with the effect), the empirical-Bayes
// estimates of ln α, pooled over the studies, have a lower RMSE against
// the truth than the first-level ones. Long (about 3 minutes on 2 cores):
// skipped under -short, run by `make peb-recovery`.
func TestPEBRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("20 studies of 60 subjects: run without -short (make peb-recovery)")
	}
	m, err := pomdp.Load("../examples/fit/tmaze-learn.json")
	if err != nil {
		t.Fatal(err)
	}
	world, err := pomdp.Load("../examples/behaviour/world-right.json")
	if err != nil {
		t.Fatal(err)
	}
	const studies = 10
	sumBeta, sumSD := 0.0, 0.0
	covered, detected, falseAlarms := 0, 0, 0
	for s := range 2 * studies {
		effect := 0.6
		if s >= studies {
			effect = 0
		}
		st := runGroupStudy(t, m, world, uint64(100+s), effect, 30)
		e := st.peb.Effects[1]
		if e.Covariate != "group" {
			t.Fatalf("effect 1 is %s, want group", e.Covariate)
		}
		sd := math.Sqrt(st.peb.Sigma[0][0])
		sumSD += sd
		t.Logf("study %2d (effect %.1f): β_group %.3f (90%% [%.3f, %.3f]), p_nonzero %.4f, intercept %.3f, √Σ %.3f",
			s+1, effect, e.Mean, e.Lo, e.Hi, e.PNonzero, st.peb.Effects[0].Mean, sd)
		if effect > 0 {
			sumBeta += e.Mean
			if e.Lo <= effect && effect <= e.Hi {
				covered++
			}
			if e.PNonzero > 0.95 {
				detected++
			}
		} else if e.PNonzero >= 0.5 {
			falseAlarms++
		}
	}
	meanBeta, meanSD := sumBeta/studies, sumSD/(2*studies)
	t.Logf("mean β_group %.4f, 90%% intervals covering 0.6: %d of 10, p_nonzero > 0.95: %d of 10; null studies with p_nonzero >= 0.5: %d of 10; mean √Σ %.4f",
		meanBeta, covered, detected, falseAlarms, meanSD)
	if math.Abs(meanBeta-0.6) > 0.1 || covered < 7 || detected < 8 || falseAlarms > 2 {
		t.Errorf("group effect: mean %.4f (want 0.6 ± 0.1), covered %d (want >= 7), detected %d (want >= 8), null studies above 0.5: %d (want <= 2)",
			meanBeta, covered, detected, falseAlarms)
	}
	if meanSD < 0.15 || meanSD > 0.45 {
		t.Errorf("mean √Σ %.4f, want within [0.15, 0.45] (true 0.3)", meanSD)
	}
	var seFirst, seEB float64
	count := 0
	for s := range studies {
		st := runGroupStudy(t, m, world, uint64(200+s), 0.6, 8)
		for i, truth := range st.truth {
			seFirst += (st.first[i] - truth) * (st.first[i] - truth)
			seEB += (st.peb.ThetaEB[i][0] - truth) * (st.peb.ThetaEB[i][0] - truth)
			count++
		}
	}
	rmseFirst, rmseEB := math.Sqrt(seFirst/float64(count)), math.Sqrt(seEB/float64(count))
	t.Logf("8 trials, %d subjects pooled: RMSE of ln α, first level %.4f, empirical Bayes %.4f", count, rmseFirst, rmseEB)
	if !(rmseEB < rmseFirst) {
		t.Errorf("shrinkage: RMSE %.4f (empirical Bayes) not below %.4f (first level)", rmseEB, rmseFirst)
	}
}
