#!/usr/bin/env python3
# Writes montgomery-known-answers.txt: modular powers and products computed by Python's own big integers,
# an implementation independent of BigUInt. Run at development time only; the tests read the committed text.
import random

random.seed(20261124)


def h(x):
    s = '%x' % x
    return '0' + s if len(s) % 2 else s


rows = []
for bits in [64, 65, 127, 521, 1024, 2048, 3072, 4096]:
    n = random.getrandbits(bits) | (1 << (bits - 1)) | 1
    base = random.randrange(n)
    exponent = random.getrandbits(min(bits, 300))
    factor = random.randrange(n)
    rows.append((n, base, exponent, factor))
# Edges: the smallest odd modulus above 1, a full one-limb modulus, a two-limb all-ones modulus, e = 0 and 1.
rows += [(3, 2, 5, 2), (2**64 - 1, 2**64 - 2, 65537, 2**64 - 2), (2**128 - 1, 2**128 - 2, 3, 2**128 - 2)]
rows += [(2**2048 - 159, 12345, 0, 1), (2**2048 - 159, 2**2047, 1, 0)]
with open('montgomery-known-answers.txt', 'w') as out:
    out.write('# modulus base exponent base^exponent%modulus factor base*factor%modulus (hex, Python ints)\n')
    for n, base, exponent, factor in rows:
        out.write(' '.join(h(v) for v in (n, base, exponent, pow(base, exponent, n), factor, base * factor % n)) + '\n')
