"""What changed over the periods stage's periods: shares and their tests, trends, trajectories, bursts, themes, venues."""
