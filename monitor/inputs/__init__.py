"""What arrives: bytes decoded and validated into an AnswerEvent (the v1 event).

Imports config/, records/ and text/.
"""
