"""What changed over the periods stage's periods: shares per period and the periods compared,
trends, trajectories, bursts, themes within a topic, venues and each venue's trends.
"""
