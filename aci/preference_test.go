package aci_test

import (
	"math"
	"testing"

	"github.com/arbor-ai/arbor/aci"
	"github.com/arbor-ai/arbor/pomdp"
)

// TestJointPreferenceProduct: the T-maze whose preference over (where,
// reward) is one joint table, the product of where's uniform target and
// reward's softmax([0, 3, -6]) (pomdp/testdata/factorised-tmaze-joint.json),
// gives every policy the G, risk and ambiguity of its per-modality
// spelling.
func TestJointPreferenceProduct(t *testing.T) {
	var res [2]*aci.EvalResult
	for k, path := range []string{"../pomdp/testdata/factorised-tmaze.json", "../pomdp/testdata/factorised-tmaze-joint.json"} {
		m, err := pomdp.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if res[k], err = aci.Eval(m, 0, 3, 16); err != nil {
			t.Fatal(err)
		}
	}
	for i := range res[0].G {
		if math.Abs(res[0].G[i]-res[1].G[i]) > 1e-9 || math.Abs(res[0].Ambiguity[i]-res[1].Ambiguity[i]) > 1e-12 {
			t.Errorf("policy %v: G %.12g, joint %.12g", res[0].Policies[i], res[0].G[i], res[1].G[i])
		}
	}
}
