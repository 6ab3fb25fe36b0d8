"""Whether a database's WAL, left by a server that died, lost committed transactions to damage.

SQLite replays a WAL's frames at open up to the first frame whose checksum fails (or whose salts
are not the header's) and ignores the rest without a word: a WAL damaged in one early frame
makes the server start without every acknowledged move committed after it. A frame of the
current WAL (its salts are the header's) with a valid page number that follows a damaged one, in
a commit transaction, is such a lost transaction; frames of an earlier WAL generation (other
salts) are the normal leftovers of a checkpoint. So the WAL is read here, before SQLite opens
it, by the file format's rules (https://sqlite.org/fileformat2.html#walformat): plain code on bytes.

A SIGKILL leaves no torn write (the kernel holds what was written), so a damaged frame there is
damage from outside; a power cut may tear the last transaction, which was never acknowledged, and
its frames may come out of order: one commit frame after the damage is reported as possibly that,
more than one as transactions surely lost.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

MAGIC = (0x377F0682, 0x377F0683)
HEADER = 32
FRAME_HEADER = 24


@dataclass(frozen=True)
class WalDamage:
    """Frames SQLite will ignore although they belong to the current WAL."""

    valid_frames: int          # frames SQLite replays
    lost_frames: int           # frames of the current WAL after the damage
    lost_commits: int          # commit frames among them: transactions SQLite will drop

    def sentence(self, path: str) -> str:
        surely = "transactions lost" if self.lost_commits > 1 else "transaction lost, or a write torn by a power cut"
        return (f"{path} is damaged after frame {self.valid_frames}: {self.lost_frames} later frames of it "
                f"({self.lost_commits} commits) will be ignored by SQLite, {self.lost_commits} committed "
                f"{surely}; acknowledged moves may be missing. A copy of the file may be recovered by hand "
                f"(docs/operations.md)")


def _checksum(data: bytes, s0: int, s1: int, big_endian: bool) -> tuple[int, int]:
    words = struct.unpack((">" if big_endian else "<") + f"{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def wal_damage(wal: bytes) -> WalDamage | None:
    """The damage of a WAL file's contents, or None (intact, empty, or not a WAL SQLite would read)."""
    if len(wal) < HEADER:
        return None
    magic, _, page_size, _, salt1, salt2, c0, c1 = struct.unpack(">8I", wal[:HEADER])
    if magic not in MAGIC or page_size < 512 or page_size & (page_size - 1):
        return None
    big = magic & 1 == 1
    s0, s1 = _checksum(wal[:24], 0, 0, big)
    if (s0, s1) != (c0, c1):
        return None           # SQLite ignores the whole file: nothing in it was ever replayed
    size = FRAME_HEADER + page_size
    frames = (len(wal) - HEADER) // size
    valid = 0
    for n in range(frames):
        at = HEADER + n * size
        page, _, f1, f2, k0, k1 = struct.unpack(">6I", wal[at:at + FRAME_HEADER])
        if (f1, f2) != (salt1, salt2) or page == 0:
            return None       # the end of the current WAL: what follows is an earlier one's
        s0, s1 = _checksum(wal[at:at + 8] + wal[at + FRAME_HEADER:at + size], s0, s1, big)
        if (s0, s1) != (k0, k1):
            break
        valid = n + 1
    else:
        return None
    lost = commits = 0
    for n in range(valid + 1, frames):
        at = HEADER + n * size
        page, after, f1, f2 = struct.unpack(">4I", wal[at:at + 16])
        if (f1, f2) == (salt1, salt2) and page != 0:
            lost += 1
            commits += after != 0
    if commits == 0:
        return None           # a torn last transaction that never committed: nothing acknowledged
    return WalDamage(valid, lost + 1, commits)
