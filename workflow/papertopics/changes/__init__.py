"""What changed over the groups stage's periods: shares and their tests, trends, trajectories, bursts, themes, venues."""
