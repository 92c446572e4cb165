"""Theano's module path for scan: ``from theon.scan_module import scan, until``.

>>> from theon.scan_module import scan, until
>>> scan.__module__, until.__module__
('theon.scan.basic', 'theon.scan.utils')
"""

from theon.scan.basic import scan
from theon.scan.loop import loop
from theon.scan.op import Scan, ScanInfo
from theon.scan.utils import ScanUpdates, until

__all__ = ["Scan", "ScanInfo", "ScanUpdates", "loop", "scan", "until"]
