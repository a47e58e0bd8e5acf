"""sg.scipy.stats: scipy.stats distributions' logpdf/pdf/cdf/... as graph ops (ops layer).

Each distribution is a namespace of functions named as scipy's methods with
scipy's argument names: ``sg.scipy.stats.norm.logpdf(x, loc=0.0, scale=2.0)``.
Location-scale families with elementary closed forms live in locscale.py,
those on the special functions in continuous.py, the discrete ones in
discrete.py, multivariate_normal and dirichlet in multivariate.py; the
counts geom, nbinom, betabinom and multinomial in discrete_counts.py;
gumbel_r/l, pareto, truncnorm, gennorm, vonmises and wrapcauchy in
continuous_shapes.py; the sample summaries mode, rankdata and sem in
summaries.py; the kernel density estimate gaussian_kde in kde.py.
"""

from .continuous import beta, chi2, gamma, norm, t
from .continuous_shapes import gennorm, gumbel_l, gumbel_r, pareto, truncnorm, vonmises, wrapcauchy
from .discrete import bernoulli, binom, poisson
from .discrete_counts import betabinom, geom, multinomial, nbinom
from .kde import gaussian_kde
from .locscale import cauchy, expon, laplace, logistic, uniform
from .multivariate import dirichlet, multivariate_normal
from .summaries import ModeResult, mode, rankdata, sem

__all__ = [
    "ModeResult", "bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon", "gamma",
    "gaussian_kde", "geom", "gennorm", "gumbel_l", "gumbel_r", "laplace", "logistic", "mode", "multinomial",
    "multivariate_normal", "nbinom", "norm", "pareto", "poisson", "rankdata", "sem", "t", "truncnorm",
    "uniform", "vonmises", "wrapcauchy",
]  # fmt: skip
