"""Each paper's period (dump or year) and group (a venue, a track), decided once, by the periods stage, for every later stage."""
