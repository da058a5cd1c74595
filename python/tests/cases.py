"""The case lists of the differential suites: fixed edge cases plus seeded
random ones. `LINEA_TEST_SEED` picks another reproducible draw."""

import os
import random

SEED = int(os.environ.get("LINEA_TEST_SEED", "0"))

BATCHES = ([], [3], [2, 3])


def edge_cases():
    """The cases SPEC and the issues name explicitly."""
    la = dict(op="linear_attention", batch=[2], dk=4, dv=3)
    ga = dict(op="gated_linear_attention", batch=[2], dk=4, dv=3)
    return [
        dict(op="presum", shape=[1, 4]),
        dict(op="presum", shape=[1, 4], exclusive=True),
        dict(op="presum", shape=[13, 5], exclusive=True, reverse=True),
        dict(op="presum", shape=[2, 3, 1000, 4], reverse=True),
        dict(op="presum", shape=[2, 3, 17, 4], dim=1, exclusive=True, dynamic=[0, 2]),
        dict(op="presum", shape=[11], exclusive=True),
        # decayed (the chunk-parallel form's state passing): per-dim and
        # scalar decays, one step, dynamic sizes, every direction
        dict(op="presum", shape=[2, 5, 3, 4], dim=1, exclusive=True, decay_rank=3),
        dict(op="presum", shape=[2, 7, 3, 4], dim=1, reverse=True, decay_rank=2,
             dynamic=[1]),
        dict(op="presum", shape=[3, 1, 4, 2], dim=1, decay_rank=2),
        dict(op="presum", shape=[13, 5], dim=0, exclusive=True, reverse=True, decay_rank=1),
        dict(op="presum", shape=[2, 97, 3], decay_rank=3, dynamic=[0, 1]),
        dict(la, L=1, mask="none"), dict(la, L=1, mask="causal"),
        dict(la, L=1, mask="prefix", prefix=1), dict(la, L=1, mask="prefix", prefix=0),
        dict(la, L=13, mask="prefix", prefix=0), dict(la, L=13, mask="prefix", prefix=13),
        dict(la, L=13, mask="prefix", prefix=0, dyn_prefix=True),
        dict(la, L=13, mask="prefix", prefix=13, dyn_prefix=True, dyn_L=True),
        dict(la, L=997, mask="prefix", prefix=331, dyn_prefix=True, final=True),
        dict(la, batch=[2, 3], L=29, mask="causal", init=True, final=True, dyn_batch=True,
             dyn_L=True),
        dict(la, L=31, mask="none", feature_map="elu_plus_one", normalize=True),
        dict(la, L=9, mask="prefix", prefix=9, dyn_prefix=True, final=True),
        dict(ga, L=9, mask="prefix", prefix=9, dyn_prefix=True, final=True),
        dict(ga, L=9, mask="prefix", prefix=0, dyn_prefix=True, init=True),
        dict(la, L=31, mask="prefix", prefix=7, feature_map="relu", scale=0.125),
        dict(ga, L=1, mask="causal", final=True),
        dict(ga, L=257, mask="causal", init=True, final=True),
        dict(ga, L=257, mask="causal", scalar_gate=True, final=True),
        dict(ga, L=19, mask="prefix", prefix=19, init=True, final=True),
        dict(ga, L=19, mask="prefix", prefix=0, dyn_prefix=True, dyn_L=True),
        dict(ga, L=19, mask="prefix", prefix=1, scalar_gate=True, init=True),
        dict(ga, L=11, mask="none", init=True, final=True),
        dict(ga, L=11, mask="none", scalar_gate=True, dyn_L=True),
        dict(op="attention", batch=[2], Lq=5, Lk=5, dk=4, dv=3, mask="causal"),
        dict(op="attention", batch=[2], Lq=3, Lk=7, dk=4, dv=3, mask="causal"),
        dict(op="attention", batch=[2], Lq=7, Lk=3, dk=4, dv=3, mask="causal"),
        dict(op="attention", batch=[2], Lq=1, Lk=9, dk=4, dv=6, mask="none", scale=0.3),
        dict(op="fold", batch=[2], L=4, l=4, d=3),
        dict(op="fold", batch=[2], L=20, l=4, d=3, layers=2),
        dict(op="fold", batch=[2, 3], L=12, l=3, d=4, dyn_L=True, dyn_batch=True),
        dict(op="fold", batch=[], L=5, l=1, d=2),
        dict(op="folded_attention", batch=[2], L=8, l=4, d=8, heads=2),
        dict(op="folded_attention", batch=[], L=24, l=4, d=8, heads=4, dyn_L=True),
    ]


def random_presum(r):
    rank = r.choice([1, 2, 3, 4])
    shape = [r.choice([1, 2, 3, 5]) for _ in range(rank)]
    seq = rank - 2 if rank >= 2 else 0
    shape[seq] = r.choice([1, 2, 13, 97, 256, 1000])
    spec = dict(op="presum", shape=shape, exclusive=r.random() < 0.5,
                reverse=r.random() < 0.5,
                dynamic=[d for d in range(rank) if r.random() < 0.3])
    if r.random() < 0.4:
        spec["dim"] = r.randrange(rank)
    return spec


def random_decayed_presum(r):
    spec = random_presum(r)
    dim = spec.get("dim", len(spec["shape"]) - 2 if len(spec["shape"]) >= 2 else 0)
    spec["decay_rank"] = r.randint(dim + 1, len(spec["shape"]))
    return spec


def random_mask(r, L, gated):
    mask = r.choice(["none", "causal", "prefix"])
    spec = dict(mask=mask)
    if mask == "prefix":
        spec["prefix"] = r.choice([0, L, r.randint(0, L)])
        spec["dyn_prefix"] = r.random() < 0.5
    return spec


def random_linear(r, gated):
    L = r.choice([1, 2, 7, 13, 64, 101, 257, 500])
    dk = r.choice([1, 4, 8, 16])
    dv = r.choice([dk, 3, 8])
    spec = dict(op="gated_linear_attention" if gated else "linear_attention",
                batch=r.choice(BATCHES), L=L, dk=dk, dv=dv,
                dyn_L=r.random() < 0.3, dyn_batch=r.random() < 0.2,
                final=r.random() < 0.5)
    spec.update(random_mask(r, L, gated))
    if r.random() < 0.3:
        spec["scale"] = r.choice([0.5, 0.125, 2.0])
    if gated:
        spec["scalar_gate"] = r.random() < 0.5
        spec["init"] = r.random() < 0.4
        return spec
    spec["feature_map"] = r.choice(["identity", "elu_plus_one", "relu"])
    # normalize is well conditioned only for a positive feature map.
    if spec["feature_map"] == "elu_plus_one" and r.random() < 0.5:
        spec["normalize"] = True
    elif r.random() < 0.4:
        spec["init"] = True
    return spec


def random_attention(r):
    lk = r.choice([1, 2, 9, 16, 61])
    lq = r.choice([lk, 1, max(1, lk // 2), lk + 3])
    return dict(op="attention", batch=r.choice(BATCHES), Lq=lq, Lk=lk,
                dk=r.choice([2, 8]), dv=r.choice([3, 8]),
                mask=r.choice(["none", "causal"]),
                scale=r.choice([None, None, 0.25]), dyn_L=r.random() < 0.3)


def random_fold(r):
    l = r.choice([1, 2, 4])
    return dict(op="fold", batch=r.choice(BATCHES), l=l, L=l * r.choice([1, 2, 5]),
                d=r.choice([2, 4]), layers=r.choice([1, 2]), dyn_L=r.random() < 0.3)


def random_folded(r):
    heads = r.choice([1, 2, 4])
    l = r.choice([2, 4])
    return dict(op="folded_attention", batch=r.choice(BATCHES[:2]), l=l,
                L=l * r.choice([1, 3]), d=4 * heads, heads=heads, dyn_L=r.random() < 0.3)


def random_cases(seed=SEED):
    r = random.Random(seed)
    cases = [random_presum(r) for _ in range(40)]
    cases += [random_linear(r, gated=False) for _ in range(70)]
    cases += [random_linear(r, gated=True) for _ in range(50)]
    cases += [random_attention(r) for _ in range(25)]
    cases += [random_fold(r) for _ in range(12)]
    cases += [random_folded(r) for _ in range(8)]
    cases += [random_decayed_presum(r) for _ in range(10)]
    return cases


def case_id(spec):
    keys = [k for k in spec if k != "op"]
    return spec["op"] + "-" + "-".join(f"{k}={spec[k]}" for k in keys).replace(" ", "")


def all_cases():
    return edge_cases() + random_cases()
