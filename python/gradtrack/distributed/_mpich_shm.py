"""MPICH's node-shared memory file, unlinked once every rank of the node maps it.

NOTE [MPICH's shared-memory file]
MPICH (4.x and later, ch4 device) gives the ranks of one node a common block of
memory for their messages: a POSIX shared-memory file ``/dev/shm/mpich_shm_<job>_<node>``
that every local rank opens and maps while MPI starts, and that is unlinked only by
``MPI_Finalize``. A job that never reaches it (a rank killed by a signal, ``os._exit``,
``MPI_Abort``, a launcher killed on a timeout) leaves the file behind, and with it its
memory (about 2 MB per job), until the machine restarts.

No rank can open the file after ``MPI_Init`` has returned anywhere: MPICH makes each
rank wait in ``MPI_Init`` until every rank of its node has mapped the block. So once
the world's rendezvous completed, the name is no longer needed, and each rank unlinks
the ones it maps (found in ``/proc/self/maps``; unlinking an unlinked name fails
harmlessly, and so does ``MPI_Finalize``'s own unlink later). The memory stays
shared by the ranks that map it and the kernel frees it with the last mapping, however
the job ends: the same promise as ``share_memory_``'s descriptors.
"""

import os

PREFIX = "/dev/shm/mpich_shm_"


def mapped_names(maps_path="/proc/self/maps"):
    """The MPICH node-shared files this process maps, by path (unlinked ones left out).

    >>> from gradtrack.distributed import _mpich_shm
    >>> _mpich_shm.mapped_names()  # no MPI job in this process
    []
    """
    try:
        with open(maps_path) as f:
            lines = f.read().splitlines()
    except OSError:  # not Linux: nothing to do
        return []
    names = []
    for line in lines:
        fields = line.split(None, 5)
        if len(fields) == 6 and fields[5].startswith(PREFIX) and fields[5] not in names:
            names.append(fields[5])  # an unlinked one ends with " (deleted)": not a name
    return [n for n in names if not n.endswith(" (deleted)")]


def unlink_mapped():
    """Unlinks the MPICH node-shared files this process maps (NOTE [MPICH's shared-memory
    file]); call only after a collective over the world has completed.

    >>> from gradtrack.distributed import _mpich_shm
    >>> _mpich_shm.unlink_mapped()
    []
    """
    gone = []
    for name in mapped_names():
        try:
            os.unlink(name)
        except OSError:  # another rank of the node did it first
            continue
        gone.append(name)
    return gone
