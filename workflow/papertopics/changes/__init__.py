"""What changed: each paper's period and group, shares and their tests, trends, trajectories, bursts, themes, venues."""
