package fit_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/arbor-ai/arbor/fit"
)

func TestParseFormula(t *testing.T) {
	for _, c := range []struct {
		in, want string
	}{
		{"1", "1"},
		{"1 + group + age", "1 + group + age"},
		{"1+group*age", "1 + group + age + group:age"},
		{"group:age + 1", "group:age + 1"},
		{"a*b*c", "a + b + c + a:b + a:c + b:c + a:b:c"},
		{"1 + a + a + 1:a", "1 + a"},
		{"a:b + b:a", "a:b"},
		{"x_1 + y.2", "x_1 + y.2"},
	} {
		f, err := fit.ParseFormula(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got := f.String(); got != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"", "at 1: the formula ends"},
		{"1 +", "at 4: the formula ends"},
		{"1 + 2", "at 5: '2', want a covariate name or 1"},
		{"1 + 12", "at 5: a number other than 1"},
		{"a - b", `at 3: '-', want + or the end`},
		{"a + (b)", `at 5: '(', want a covariate name or 1`},
	} {
		_, err := fit.ParseFormula(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line containing %q", c.in, err, c.want)
		}
	}
}

// FuzzParseFormula: the parser never panics, and what it accepts writes
// back to a formula that parses to the same terms.
func FuzzParseFormula(f *testing.F) {
	for _, s := range []string{"1", "1 + group + age", "a*b:c + 1", "a:b*c*d", "1+1", "x.1_y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := fit.ParseFormula(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a multi-line error: %q", err)
			}
			return
		}
		h, err := fit.ParseFormula(g.String())
		if err != nil {
			t.Fatalf("%q wrote back as %q, which fails: %v", s, g.String(), err)
		}
		if diff := cmp.Diff(g.String(), h.String()); diff != "" {
			t.Fatalf("round trip mismatch (-want +got):\n%s", diff)
		}
	})
}

func readCov(t *testing.T, text string) (*fit.Covariates, error) {
	t.Helper()
	return fit.ReadCovariates(strings.NewReader(text), "cov.csv")
}

func TestNewDesign(t *testing.T) {
	cov, err := readCov(t, "subject,group,age,site\ns2,1,30,b\ns1,0,40,a\ns3,1,50,c\ns4,0,20,a\ns5,0,35,b\ns6,1,25,c\ns7,0,45,c\n")
	if err != nil {
		t.Fatal(err)
	}
	f, err := fit.ParseFormula("1 + group*age + site")
	if err != nil {
		t.Fatal(err)
	}
	d, err := fit.NewDesign(f, cov, []string{"s1", "s2", "s3", "s4", "s5", "s6", "s7"})
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []string{"1", "group", "age", "group:age", "site[b]", "site[c]"}
	if diff := cmp.Diff(wantCols, d.Columns); diff != "" {
		t.Errorf("columns mismatch (-want +got):\n%s", diff)
	}
	// Rows follow the subjects' order, not the file's.
	want := [][]float64{{1, 0, 40, 0, 0, 0}, {1, 1, 30, 30, 1, 0}, {1, 1, 50, 50, 0, 1}, {1, 0, 20, 0, 0, 0}, {1, 0, 35, 0, 1, 0}, {1, 1, 25, 25, 0, 1}, {1, 0, 45, 0, 0, 1}}
	if diff := cmp.Diff(want, d.X); diff != "" {
		t.Errorf("X mismatch (-want +got):\n%s", diff)
	}
}

func TestDesignErrors(t *testing.T) {
	subjects := []string{"s1", "s2", "s3", "s4"}
	for _, c := range []struct{ cov, formula, want string }{
		{"subject,group\ns1,0\ns2,1\ns3,0\n", "1 + group", `cov.csv: no row for subject "s4" of the data`},
		{"subject,group\ns1,0\ns2,1\ns3,0\ns4,1\ns9,0\n", "1 + group", `cov.csv:6: subject "s9" is not in the data`},
		{"subject,group\ns1,0\ns2,1\ns3,0\ns4,1\n", "1 + grp", "design term grp: grp names no column of cov.csv (it has group)"},
		{"subject,a,b\ns1,0,0\ns2,1,2\ns3,0,0\ns4,1,2\n", "1 + a + b", "column b is a linear combination of 1, a"},
		{"subject,a\ns1,0\ns2,0\ns3,0\ns4,0\n", "1 + a", "column a is 0 for every subject"},
		{"subject,a,b,c,d\ns1,1,0,0,0\ns2,0,1,0,3\ns3,0,0,1,0\ns4,2,0,5,1\n", "1 + a + b + c + d", "4 subjects for at least 5 columns (1, a, b, c, d)"},
		{"subject,g\ns1,x\ns2,x\ns3,x\ns4,x\n", "1 + g", "g has one level"},
	} {
		cov, err := readCov(t, c.cov)
		if err != nil {
			t.Fatalf("%q: %v", c.cov, err)
		}
		f, err := fit.ParseFormula(c.formula)
		if err != nil {
			t.Fatal(err)
		}
		_, err = fit.NewDesign(f, cov, subjects)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q with %q: error %v, want one line containing %q", c.cov, c.formula, err, c.want)
		}
	}
}

func TestReadCovariatesErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "cov.csv: empty"},
		{"id,group\n", "cov.csv:1: the header must be subject,NAME"},
		{"subject,group\ns1,0\ns2,1\ns3,abc\n", `cov.csv:4: column group: "abc" is not a number (the column is numeric: line 2 has 0)`},
		{"subject,group\ns1,0\ns1,1\n", "cov.csv:3: subject \"s1\" again (first at line 2)"},
		{"subject,group\ns1,0\ns2\n", "cov.csv:3: wrong number of fields"},
		{"subject,group\ns1,NaN\ns2,1\n", "cov.csv:2: column group: NaN, want a finite number"},
		{"subject,1x\ns1,0\n", "cov.csv:1: column name \"1x\""},
		{"subject,a,a\ns1,0,0\n", "cov.csv:1: column a twice"},
		{"subject,a\ns1,\n", "cov.csv:2: column a: an empty value"},
		{"subject,a\n", "cov.csv: no subject rows"},
	} {
		_, err := readCov(t, c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line containing %q", c.in, err, c.want)
		}
	}
}

// FuzzReadCovariates: any file gives covariates or a one-line error, and a
// design from accepted covariates never panics.
func FuzzReadCovariates(f *testing.F) {
	f.Add("subject,group,age\ns1,0,30\ns2,1,40\n", "1 + group*age")
	f.Add("subject,site\ns1,a\ns2,b\ns3,a\n", "site")
	f.Fuzz(func(t *testing.T, text, formula string) {
		cov, err := fit.ReadCovariates(strings.NewReader(text), "f.csv")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a multi-line error: %q", err)
			}
			return
		}
		g, err := fit.ParseFormula(formula)
		if err != nil {
			return
		}
		if _, err := fit.NewDesign(g, cov, cov.Subjects); err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("a multi-line error: %q", err)
		}
	})
}
