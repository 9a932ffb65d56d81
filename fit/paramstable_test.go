package fit_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/fit"
)

// TestReadParamsTableFitCSV: the output of fit --csv reads as it is
// written: the values of the parameters, their SDs apart, the statistics
// columns ignored.
func TestReadParamsTableFitCSV(t *testing.T) {
	ps := aci.Factory{}.Params(loadTMaze(t))
	text := "subject,alpha,alpha_sd,eta,eta_sd,log_likelihood,log_evidence,aic,bic,n_choices,converged,reason\n" +
		"1,2.5,0.5,0.8,NA,-40.1,-42.3,84.2,86.3,60,true,\n" +
		"2,1.5,0.25,1.2,0.1,-41.1,-43.3,86.2,88.3,60,false,the optimiser stopped\n"
	tab, err := fit.ReadParamsTable(text, "fit.csv", ps)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tab.Names, ","); got != "alpha,eta" {
		t.Errorf("names %s, want alpha,eta", got)
	}
	if tab.Values[1]["alpha"] != 1.5 || tab.Values[1]["eta"] != 1.2 || tab.SD[0]["alpha"] != 0.5 || !math.IsNaN(tab.SD[0]["eta"]) {
		t.Errorf("values %v, SDs %v", tab.Values, tab.SD)
	}
	if _, err := tab.DrawPosterior(ps, 1, 0); err == nil || !strings.Contains(err.Error(), "fit.csv:2: column eta_sd: NA") {
		t.Errorf("a draw without eta's SD: %v, want the line and the column", err)
	}
	// An SD column without its parameter is a column like any other.
	if _, err := fit.ReadParamsTable("subject,beta_sd\n1,2\n", "p.csv", ps); err == nil || !strings.Contains(err.Error(), "p.csv:1: column beta_sd") {
		t.Errorf("an unknown column: %v", err)
	}
}

// TestDrawPosterior: draws of one subject's posterior over many subjects
// of the same fit have, on the fitting scale, the mean ln 2.5 and the SD
// 0.5 / 2.5 = 0.2 (the delta method inverted: SDθ = SD / (dx/dθ) = SD / x
// for x = e^θ), within 4 standard errors; ω (logit scale) likewise, SDθ =
// SD / (x(1-x)).
func TestDrawPosterior(t *testing.T) {
	ps := aci.Factory{}.Params(loadTMaze(t))
	const n = 4000
	var b strings.Builder
	b.WriteString("subject,alpha,alpha_sd,omega,omega_sd\n")
	for k := range n {
		fmt.Fprintf(&b, "%d,2.5,0.5,0.8,0.04\n", k+1)
	}
	tab, err := fit.ReadParamsTable(b.String(), "fit.csv", ps)
	if err != nil {
		t.Fatal(err)
	}
	var sa, saa, so, soo float64
	for k := range n {
		v, err := tab.DrawPosterior(ps, 7, k)
		if err != nil {
			t.Fatal(err)
		}
		a := math.Log(v["alpha"])
		o := math.Log(v["omega"] / (1 - v["omega"]))
		sa, saa, so, soo = sa+a, saa+a*a, so+o, soo+o*o
	}
	for _, c := range []struct {
		name       string
		s, ss      float64
		mean, want float64
	}{
		{"ln alpha", sa, saa, math.Log(2.5), 0.2},
		{"logit omega", so, soo, math.Log(0.8 / 0.2), 0.04 / (0.8 * 0.2)},
	} {
		mean := c.s / n
		sd := math.Sqrt(c.ss/n - mean*mean)
		if math.Abs(mean-c.mean) > 4*c.want/math.Sqrt(n) || math.Abs(sd-c.want) > 4*c.want/math.Sqrt(2*n) {
			t.Errorf("%s: mean %.4f (want %.4f), SD %.4f (want %.4f)", c.name, mean, c.mean, sd, c.want)
		}
	}
}
