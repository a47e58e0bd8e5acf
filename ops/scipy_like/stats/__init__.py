"""sg.scipy.stats: scipy.stats distributions' logpdf/pdf/cdf/... as graph ops (ops layer).

Each distribution is a namespace of functions named as scipy's methods with
scipy's argument names: ``sg.scipy.stats.norm.logpdf(x, loc=0.0, scale=2.0)``.
Location-scale families with elementary closed forms live in locscale.py,
those on the special functions in continuous.py, the discrete ones in
discrete.py, multivariate_normal and dirichlet in multivariate.py.
"""

from .continuous import beta, chi2, gamma, norm, t
from .discrete import bernoulli, binom, poisson
from .locscale import cauchy, expon, laplace, logistic, uniform
from .multivariate import dirichlet, multivariate_normal

__all__ = [
    "bernoulli", "beta", "binom", "cauchy", "chi2", "dirichlet", "expon", "gamma", "laplace", "logistic",
    "multivariate_normal", "norm", "poisson", "t", "uniform",
]  # fmt: skip
