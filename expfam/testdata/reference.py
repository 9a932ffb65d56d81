# Reference values for the expfam tests, computed with mpmath 1.3.0 at 40
# significant digits. Run: python3 testdata/reference.py
from mpmath import mp, mpf, psi, loggamma, log

mp.dps = 40


def lnB(a):
    return sum(loggamma(x) for x in a) - loggamma(sum(a))


def dir_entropy(a):
    a = [mpf(x) for x in a]
    a0, K = sum(a), len(a)
    return lnB(a) + (a0 - K) * psi(0, a0) - sum((x - 1) * psi(0, x) for x in a)


def dir_kl(a, b):
    a = [mpf(x) for x in a]
    b = [mpf(x) for x in b]
    a0 = sum(a)
    return lnB(b) - lnB(a) + sum((x - y) * (psi(0, x) - psi(0, a0)) for x, y in zip(a, b))


def dir_elog(a):
    a = [mpf(x) for x in a]
    return [psi(0, x) - psi(0, sum(a)) for x in a]


def gamma_kl(a, b, c, d):
    a, b, c, d = mpf(a), mpf(b), mpf(c), mpf(d)
    return (a - c) * psi(0, a) - loggamma(a) + loggamma(c) + c * log(b / d) + a * (d - b) / b


print("categorical entropy (0.7,0.2,0.1)", -sum(p * log(p) for p in [mpf("0.7"), mpf("0.2"), mpf("0.1")]))
print("dirichlet entropy (0.7,0.2,0.1)", dir_entropy(["0.7", "0.2", "0.1"]))
print("dirichlet KL (0.5,0.5)||(0.1,0.9)", dir_kl(["0.5", "0.5"], ["0.1", "0.9"]))
for a in [["1e-3", "1e-3", "1e-3"], ["1e6", "1e-3", "2.5"], ["1e-3", "2e-3"]]:
    print("dirichlet", a, "entropy", dir_entropy(a), "expected log", dir_elog(a))
print("dirichlet KL small", dir_kl(["1e-3", "2e-3", "0.5"], ["0.01", "1", "1e-3"]))
print("dirichlet KL mixed", dir_kl(["1e6", "1e-3", "2.5"], ["5e5", "1", "3"]))
print("dirichlet KL huge", dir_kl(["1e6", "1e6"], ["1000003", "999998"]))
print("ln B(200, 200)", lnB([mpf(200), mpf(200)]))
print("ln B(1e6, 1e6)", lnB([mpf(10) ** 6, mpf(10) ** 6]))
print("gamma log normaliser (200, 3)", loggamma(200) - 200 * log(3))
print("gamma entropy (200, 1)", mpf(200) + loggamma(200) + (1 - mpf(200)) * psi(0, mpf(200)))
print("gamma KL (1e6, 2) || (1e6+5, 2+2^-16)", gamma_kl(10**6, 2, 10**6 + 5, 2 + mpf(2) ** -16))
