"""routes"""
