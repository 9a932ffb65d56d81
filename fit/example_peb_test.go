package fit_test

import (
	"fmt"
	"strings"

	"github.com/arbor-ai/arbor/fit"
)

// ExamplePEB fits a group level over six subjects' first-level posteriors
// of one parameter (on its fitting scale, each with its Laplace variance
// and log evidence), three controls and three patients, with the design
// "1 + group" built from a covariates file. Removing the first-level
// prior N(0, 1) from a posterior of variance 0.04 scales its mean by
// 25/24 (the likelihood's precision is 25 − 1): the controls' mean 0.5
// becomes 0.52 and the difference 0.6 becomes 0.625, which β's prior
// N(0, 1) pulls slightly toward 0.
func ExamplePEB() {
	cov, err := fit.ReadCovariates(strings.NewReader("subject,group\nc1,control\nc2,control\nc3,control\np1,patient\np2,patient\np3,patient\n"), "cov.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	formula, err := fit.ParseFormula("1 + group")
	if err != nil {
		fmt.Println(err)
		return
	}
	subjects := []string{"c1", "p1", "c2", "p2", "c3", "p3"}
	design, err := fit.NewDesign(formula, cov, subjects)
	if err != nil {
		fmt.Println(err)
		return
	}
	theta := []float64{0.4, 1.2, 0.6, 1.0, 0.5, 1.1}
	post := make([]fit.Posterior, len(theta))
	for i, t := range theta {
		post[i] = fit.Posterior{Mean: []float64{t}, Cov: [][]float64{{0.04}}, LogEvidence: -40}
	}
	res, err := fit.PEB(post, []string{"alpha"}, []fit.Prior{{Mean: 0, SD: 1}}, design, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(design.Columns)
	for _, e := range res.Effects {
		fmt.Printf("%s: %.2f [%.2f, %.2f], P(≠0) %.3f\n", e.Covariate, e.Mean, e.Lo, e.Hi, e.PNonzero)
	}
	fmt.Printf("shrunk: %.2f\n", res.ThetaEB[0][0])
	// Output:
	// [1 group[patient]]
	// 1: 0.52 [0.27, 0.77], P(≠0) 0.983
	// group[patient]: 0.61 [0.26, 0.96], P(≠0) 0.927
	// shrunk: 0.48
}
