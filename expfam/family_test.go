package expfam_test

import (
	"testing"

	"github.com/arbor-ai/arbor/expfam"
)

func TestFamilyStringParse(t *testing.T) {
	for _, tc := range []struct {
		f    expfam.Family
		name string
	}{
		{expfam.CategoricalFamily, "categorical"},
		{expfam.DirichletFamily, "dirichlet"},
		{expfam.GammaFamily, "gamma"},
	} {
		if got := tc.f.String(); got != tc.name {
			t.Errorf("Family(%d).String() = %q, want %q", int(tc.f), got, tc.name)
		}
		f, err := expfam.ParseFamily(tc.name)
		if err != nil || f != tc.f {
			t.Errorf("ParseFamily(%q) = %v, %v, want %v, nil", tc.name, f, err, tc.f)
		}
	}
	if got := expfam.Family(0).String(); got != "Family(0)" {
		t.Errorf("Family(0).String() = %q", got)
	}
	if got := expfam.Family(9).String(); got != "Family(9)" {
		t.Errorf("Family(9).String() = %q", got)
	}
	for _, s := range []string{"", "gaussian", "Gamma", "Family(1)"} {
		_, err := expfam.ParseFamily(s)
		wantErr(t, "ParseFamily("+s+")", err, `"`+s+`"`, "categorical, dirichlet, gamma")
	}
}
