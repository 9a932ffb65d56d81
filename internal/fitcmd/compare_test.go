package fitcmd

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompareLabels(t *testing.T) {
	base := map[string]string{"model": "a.json", "data": "d.csv", "free": "alpha", "horizon": "2", "jobs": "2"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	order := []string{"model", "data", "free", "horizon", "jobs"}
	for _, c := range []struct {
		name     string
		commands []string
		settings []map[string]string
		want     []string
	}{
		{"model files", []string{"aci fit", "aci fit"}, []map[string]string{base, with("model", "b.json", "jobs", "1")}, []string{"a.json", "b.json"}},
		{"settings", []string{"aci fit", "aci fit", "aci fit"}, []map[string]string{base, with("free", "gamma"), with("model", "b.json", "horizon", "3")},
			[]string{"a.json --free alpha --horizon 2", "a.json --free gamma --horizon 2", "b.json --free alpha --horizon 3"}},
		{"planners", []string{"aci fit", "si fit"}, []map[string]string{base, with("depth", "2")}, []string{"aci: a.json --depth (default)", "si: a.json --depth 2"}},
		{"the same", []string{"aci fit", "aci fit"}, []map[string]string{base, with("data", "other.csv")}, []string{"a.json (this fit)", "a.json (b.jsonl)"}},
	} {
		got := CompareLabels(c.commands, c.settings, order, []string{"", "b.jsonl", "c.jsonl"}[:len(c.settings)])
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", c.name, diff)
		}
	}
}
