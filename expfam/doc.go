// Package expfam holds the probability distributions of arbor in
// exponential-family form.
//
// A density in exponential-family form is
//
//	p(x | η) = h(x) exp(η·T(x) - A(η))
//
// with sufficient statistics T(x), natural parameters η, log-normaliser
// (log-partition) A(η) and base measure h(x). The expected sufficient
// statistics (mean parameters) are the gradient of the log-normaliser,
// E[T(x)] = ∇A(η) (paper Appendix D). Variational message passing works in
// these coordinates: a conjugate factor sends a message that is a vector of
// natural parameters, a posterior's natural parameters are the prior's plus
// the sum of its incoming messages (paper eq. 8), and neighbours consume its
// expected sufficient statistics.
//
// # Families
//
//	family       T(x)          η                  E[T(x)]                        A(η)
//	Categorical  one-hot(x)    ln p               p                              ln Σ exp η (0 for normalised p)
//	Dirichlet    ln p          α - 1              ψ(α_i) - ψ(Σα)                 ln B(α) = Σ ln Γ(α_i) - ln Γ(Σα)
//	Gamma        [ln g, g]     [a - 1, -b]        [ψ(a) - ln b, a/b]             ln Γ(a) - a ln b
//	Normal       [x, x²]       [τm, -τ/2]         [m, m² + 1/τ]                  τm²/2 - ½ ln τ + ½ ln 2π
//	MvNormal     [x, x xᵀ]     [Λm, -Λ/2]         [m, m mᵀ + Σ]                  ½ mᵀΛm - ½ ln|Λ| + (d/2) ln 2π
//	Wishart      [Λ, ln|Λ|]    [-V⁻¹/2, (ν-d-1)/2] [νV, Σᵢ ψ((ν+1-i)/2) + d ln 2 + ln|V|]  (νd/2) ln 2 + (ν/2) ln|V| + ln Γ_d(ν/2)
//	Beta         [ln x, ln(1-x)] [a - 1, b - 1]   [ψ(a) - ψ(a+b), ψ(b) - ψ(a+b)] ln Γ(a) + ln Γ(b) - ln Γ(a+b)
//
// The Normal is univariate (mean m, precision τ = 1/variance); MvNormal is
// its d-dimensional form (precision matrix Λ = Σ⁻¹) and Wishart the
// conjugate prior of Λ (ν > d - 1 degrees of freedom, scale V). Their
// matrices are d×d, row-major in []float64; CheckSPD checks a matrix a user
// gives (symmetric, positive definite, condition number at most
// MaxConditionSPD). Every family,
// built-in or added with Declare, is described to the engine by a
// Declaration (family.go).
//
// ψ is the digamma function (gonum.org/v1/gonum/mathext.Digamma, evaluated
// after shifting the argument to >= 32 by ψ(x) = ψ(x+1) - 1/x, which lowers
// its error from ~5e-11 to ~2e-15) and ln Γ is math.Lgamma, which stays finite
// where Γ itself overflows (x > 171). The
// Gamma distribution uses shape a and rate b. Every base measure is 1 (with
// respect to counting measure, Lebesgue measure on the simplex and on (0, ∞)),
// so the entropy is H = A(η) - η·E[T].
//
// # Layouts
//
// Vectors are plain []float64. A DirichletTensor holds independent Dirichlet
// columns: Shape[0] is the outcome axis K and the remaining axes index the
// columns. Alpha is stored row-major (C order) over Shape, so with
// C = Cols() = Shape[1]·Shape[2]·…, element (k, j) of the flattened column j
// is Alpha[k*C+j]. For the likelihood A of shape [|O|, |S|] element (o, s) is
// Alpha[o*|S|+s]; for a transition tensor of shape [|S|, |S|, |U|] element
// (next, prev, u) is Alpha[(next*|S|+prev)*|U|+u]. ValidateColumns uses the
// same layout. Natural parameters and expected statistics of a tensor share
// the layout of Alpha.
//
// # Output slices
//
// Functions and methods that take a dst []float64 write their result into dst
// and return it. When dst is nil they allocate a slice of the right length;
// otherwise len(dst) must equal the result length. With dst given they do not
// allocate. Softmax and DirichletAlphaFromNatural, which return something
// else, accept a nil dst and then skip writing.
//
// # Panics and errors
//
// The low-level kernels (the methods and Softmax, LogSumExp,
// DirichletAlphaFromNatural) panic when slice lengths or tensor shapes do not
// match; the panic message starts with "expfam: ". These are programmer
// errors. The kernels do not check parameter values: call Validate, or the
// constructors, first; an invalid concentration, shape or rate yields NaN or
// infinite results, not a panic. Everything a user supplies (families by name,
// probability vectors and tensors, concentrations, natural parameters coming
// back from inference) is checked by a function that returns an error naming
// the entry and the fault: ParseFamily, ValidateDistribution, ValidateColumns,
// ValidateConcentrations, NewDirichletTensor, Dirichlet.Validate,
// Gamma.Validate, GammaFromNatural, DirichletAlphaFromNatural,
// Normal.Validate, NormalFromNatural, ValidatePrecision and ValidateValue.
package expfam
