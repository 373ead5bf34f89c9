"""What a player is, without the web or the disk (SPEC §11): pure code the lobby service uses.

`names`: the validation of a chosen name, its canonical form for uniqueness, and the names
that impersonate the site, the computer or a seat.
`pairing`: quick match's waves (SPEC §12): the queues and the time in, the tables to open out.
`league`: the weekly League (SPEC §12): points by place, the week, the standings.
"""
