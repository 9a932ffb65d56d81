package si_test

import (
	"context"
	"math"
	"testing"

	"github.com/arbor-ai/arbor/pomdp"
	"github.com/arbor-ai/arbor/si"
)

// TestJointPreferenceProduct: the T-maze whose preference over (where,
// reward) is one joint table, the product of where's uniform target and
// reward's softmax([0, 3, -6]) (pomdp/testdata/factorised-tmaze-joint.json),
// gives every action the G of its per-modality spelling at depth 3.
func TestJointPreferenceProduct(t *testing.T) {
	var res [2]*si.Result
	for k, path := range []string{"../pomdp/testdata/factorised-tmaze.json", "../pomdp/testdata/factorised-tmaze-joint.json"} {
		m, err := pomdp.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		qs, err := pomdp.StatePosterior(nil, m, 0)
		if err != nil {
			t.Fatal(err)
		}
		if res[k], err = si.Plan(context.Background(), m, qs, &si.Options{Depth: 3}); err != nil {
			t.Fatal(err)
		}
	}
	for u := range res[0].G {
		if math.Abs(res[0].G[u]-res[1].G[u]) > 1e-9 || math.Abs(res[0].Risk[u]-res[1].Risk[u]) > 1e-9 {
			t.Errorf("action %d: G %.12g, joint %.12g", u, res[0].G[u], res[1].G[u])
		}
	}
}
