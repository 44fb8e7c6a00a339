#!/usr/bin/env python3
"""Independent oracle for rigor-stats' net mean (net.rs tests): a command's mean net of the
empty shell's, two independent means, the variances of the means added, Student's t with
Welch-Satterthwaite degrees of freedom (scipy.stats.ttest_ind(equal_var=False) gives the same
statistic and df). Prints the net, its standard error, df and the 95% interval the Rust test
checks. Needs numpy and scipy (pip install numpy scipy).
"""
import numpy as np
from scipy import stats

gross = np.array([5.1, 5.3, 4.9, 5.6, 5.0, 5.2])  # the command's execution times
shell = np.array([1.0, 1.2, 0.9, 1.1])  # the empty shell's, in the same rounds

va = gross.var(ddof=1) / len(gross)
vb = shell.var(ddof=1) / len(shell)
se = np.sqrt(va + vb)
df = (va + vb) ** 2 / (va**2 / (len(gross) - 1) + vb**2 / (len(shell) - 1))
net = gross.mean() - shell.mean()
t = stats.t.ppf(0.975, df)
# scipy's Welch test agrees on the statistic and the degrees of freedom.
w = stats.ttest_ind(gross, shell, equal_var=False)
assert abs(w.statistic - net / se) < 1e-12
assert abs(w.df - df) < 1e-9
print(f"net   {net:.15g}")
print(f"se    {se:.15g}")
print(f"df    {df:.15g}")
print(f"lower {net - t * se:.15g}")
print(f"upper {net + t * se:.15g}")
