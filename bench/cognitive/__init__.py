"""The progressive cognitive memory suite (issue 13): scripted learners, probes, KAG vs the archival baseline.

``dataset`` loads ``kag-cognitive-v1`` files, ``runner`` drives scenarios through the
heartbeat, ``probes`` holds the two searches, ``scoring`` the format's rules,
``metacognition`` the effort metrics, ``report`` the tables and files.
"""
