"""Recognition noise: deterministic, seeded distortions of what a caller said (see `distort`).

Kinds: ``drop`` (a word is lost), ``digits`` (a number is read digit by digit), ``homophone`` (a
word is heard as one that sounds alike) and ``filler`` (a filler before the first word), in English
and Russian. The same (text, intensity, conversation id, turn, language) always gives the same
result, in any process.
"""

from ._distort import NoiseResult, distort
from ._homophones import check_homophone_groups, parse_homophone_groups

__all__ = ["NoiseResult", "check_homophone_groups", "distort", "parse_homophone_groups"]
