"""Presentation: a seat's table and its words (render, faces, story, scoring, names, sentences),
the rules' text, messages and languages. It reads table views."""
