package model

// Seeds of FuzzParse for the multivariate families and nodes: valid
// files, and each kind of bad input they have.
func init() {
	fuzzSeeds = append(fuzzSeeds,
		`{"variables": [{"name": "x", "family": "mvnormal", "dim": 2}, {"name": "W", "family": "wishart", "dim": 2},
		  {"name": "y", "family": "mvnormal", "dim": 2, "observed": [0.5, -1]}],
		 "factors": [{"node": "mvnormal", "out": "x", "mean": [0, 0], "covariance": [[1, 0.2], [0.2, 1]]},
		  {"node": "wishart", "out": "W", "df": 3, "scale": [[1, 0], [0, 1]]},
		  {"node": "mvnormal", "out": "y", "mean": {"of": "x", "matrix": [[1, 0], [0.5, 1]], "offset": [0, 1]}, "precision": "W"}]}`,
		`{"sizes": {"T": 3}, "variables": [{"name": "x", "family": "mvnormal", "dim": 2, "size": "T"},
		  {"name": "y", "family": "mvnormal", "dim": 1, "size": "T", "observed": [[1], [2], [2.5]]}],
		 "factors": [{"node": "mvnormal", "out": "x[0]", "mean": [0, 0], "precision": [[1, 0], [0, 1]]},
		  {"node": "mvnormal", "for": {"t": "1..T-1"}, "out": "x[t]", "mean": {"of": "x[t-1]", "matrix": [[1, 1], [0, 1]]}, "covariance": [[0.1, 0], [0, 0.1]]},
		  {"node": "mvnormal", "for": {"t": "0..T-1"}, "out": "y[t]", "mean": {"of": "x[t]", "matrix": [[1, 0]]}, "precision": [[2]]}],
		 "settings": {"method": "sum-product"}}`,
		`{"sizes": {"N": 2}, "data": {"X": [[1, 2], [3, 4]]},
		  "variables": [{"name": "w", "family": "mvnormal", "dim": 2}, {"name": "t", "family": "gamma"},
		   {"name": "y", "family": "normal", "size": "N", "observed": [1, 2]}],
		  "factors": [{"node": "mvnormal", "out": "w", "mean": [0, 0], "precision": [[1, 0], [0, 1]]},
		   {"node": "gamma", "out": "t", "shape": 1, "rate": 1},
		   {"node": "normal", "for": {"n": "0..N-1"}, "out": "y[n]", "mean": {"dot": {"of": "w", "with": "X[n]"}, "offset": 0.5}, "precision": "t"}],
		  "settings": {"param_tolerance": 1e-8}}`,
		`{"variables": [{"name": "p", "family": "beta"}, {"name": "c", "family": "categorical", "shape": [2], "observed": 1}],
		 "factors": [{"node": "beta", "out": "p", "a": 1, "b": 1}, {"node": "bernoulli", "out": "c", "p": "p"}]}`,
		`{"variables": [{"name": "x", "family": "mvnormal", "dim": 2}], "factors": [{"node": "mvnormal", "out": "x", "mean": [0, 0], "precision": [[1, 2], [2, 1]]}]}`,
		`{"variables": [{"name": "W", "family": "wishart", "dim": 2}], "factors": [{"node": "wishart", "out": "W", "df": 0.5, "scale": [[1, 0], [0, 1]]}]}`,
		`{"variables": [{"name": "x", "family": "mvnormal", "dim": 2, "observed": [1, 2, 3]}]}`,
		`{"variables": [{"name": "x", "family": "mvnormal"}]}`,
	)
}
