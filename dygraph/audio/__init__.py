"""dygraph.audio (Paddle's paddle.audio): audio files and features.

`load`, `save` and `info` read and write audio files through libsndfile (the soundfile
package: pip install 'dygraph-framework[audio]'); `features` holds the spectrogram layers
(Spectrogram, MelSpectrogram, LogMelSpectrogram, MFCC) and `functional` the mel scale,
filter banks, decibels, the DCT and the windows.

Example:
    >>> import dygraph
    >>> from dygraph import audio
    >>> round(audio.functional.hz_to_mel(1000.0), 6)
    15.0
"""

from dygraph.audio import features, functional
from dygraph.audio.files import info, load, save

__all__ = ["functional", "features", "load", "info", "save"]
