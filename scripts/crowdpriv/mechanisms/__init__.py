"""The privacy mechanisms of the three papers as one family with one registry.

Each mechanism is one object (:class:`Mechanism`): an id, its settings with their defaults, its
sampler split into ε-free draws and a map per ε, the paper's guarantee as printed
(:meth:`Mechanism.claimed`), the guarantee of the code as it runs
(:meth:`Mechanism.guarantee`), its ledger text, its audit cases and its law. The experiments,
the block-streamed path, the API and CLI, the audit and the ledgers all look mechanisms up
here (:func:`get`), so a mechanism is written once.

=====================  ==================================  ================================
id                     label (files, streams)              what
=====================  ==================================  ================================
``lp``                 LP                                  LDP-sparse Eq. 6-7, float32
                                                           sampler (sweeps)
``lp-snapped``         LP release (snapped)                the same, by Mironov's snapping
                                                           (LP's release)
``rr``                 RR                                  LDP-sparse Eq. 8, NULL a symbol
``two-layer``          2-Layer                             LDP-sparse Sec. VI-D, ε_i ~
                                                           U(0, 2ε) then RR
``mf``                 MF                                  LDP-sparse Eq. 9-10, objective
                                                           perturbation
``pptd``               Alg. 2                              PPTD Alg. 2, N(0, δ²), δ² ~
                                                           Exp(λ2) per user
``priscrowd``          Alg. 1                              PrisCrowd Alg. 1, synthesis with
                                                           a privacy test
``basic``              Basic                               PrisCrowd's Laplace baseline
``rr-exact``           RR release (exact thresholds)       RR with integer thresholds (RR's
                                                           release)
``two-layer-exact``    2-Layer release (exact thresholds)  2-Layer with integer thresholds
                                                           (2-Layer's release)
``mf-snapped``         MF release (snapped)                MF with b − η snapped, solved
                                                           after (MF's release)
``pptd-laplace``       PPTD i.i.d. Laplace (snapped)       PPTD's per-record scale,
                                                           independent per record, snapped
``basic-snapped``      Basic release (snapped)             Basic with a public range,
                                                           snapped
=====================  ==================================  ================================

Adding a mechanism is one file (a :class:`Mechanism` subclass) plus one registration:
``ldp_sparse.mechanisms.extra: ["my_module:MyMechanism"]`` in the config, ``crowdpriv
--register my_module:MyMechanism ...`` on the command line, or an entry point in the group
``crowdpriv.mechanisms`` of an installed package (:func:`load`, :func:`load_entry_points`).
"""

from __future__ import annotations

from ._base import (
    PARTS,
    Channel,
    Claimed,
    DataShape,
    Guarantee,
    LawCheck,
    Mechanism,
    NoSettings,
    Perturbed,
    basic_composition,
)
from ._codes import (
    MAX_DOMAIN,
    answer_codes,
    check_domain_answers,
    check_epsilon,
    codes_to_answers,
    laplace_noise,
)
from ._registry import (
    ENTRY_POINT_GROUP,
    FunctionMechanism,
    get,
    ids,
    load,
    load_entry_points,
    members,
    register,
    resolve,
    restore,
    snapshot,
)
from .basic import Basic
from .basic_snapped import BasicSnapped
from .lp import LP
from .lp_snapped import LPSnapped
from .mf import MF
from .mf_snapped import MFSnapped
from .pptd import PPTD
from .pptd_laplace import PPTDLaplace
from .priscrowd import PrisCrowdAlg1
from .rr import RR
from .rr_exact import RRExact, TwoLayerExact
from .two_layer import TwoLayer

__all__ = [
    "PARTS", "Channel", "Claimed", "DataShape", "Guarantee", "LawCheck", "Mechanism", "NoSettings",
    "Perturbed", "basic_composition", "MAX_DOMAIN", "answer_codes", "check_domain_answers",
    "check_epsilon", "codes_to_answers", "laplace_noise", "ENTRY_POINT_GROUP",
    "FunctionMechanism", "get", "ids", "load", "load_entry_points", "members", "register",
    "resolve", "snapshot", "restore", "BUILTIN",
]

#: The built-in members, in the order the audit and the docs list them.
BUILTIN = tuple(register(cls) for cls in (LP, LPSnapped, RR, TwoLayer, MF, PPTD, PrisCrowdAlg1,
                                          Basic, RRExact, TwoLayerExact, MFSnapped,
                                          PPTDLaplace, BasicSnapped))
