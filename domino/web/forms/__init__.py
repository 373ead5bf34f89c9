"""Posted input into values: the rules card, the fair-deal seeds."""
