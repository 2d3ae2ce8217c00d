"""Speech engines behind the Protocols of `polygon_core.voice`: synthesis, recognition and voice
activity detection, registered by name."""
