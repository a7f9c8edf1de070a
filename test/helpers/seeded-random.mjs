// The one seeded random generator of the project (mulberry32), shared by the tests, the fixture
// servers (plain Node, hence .mjs) and the bench: the same seed gives the same sequence everywhere.

/** A generator of numbers in [0, 1), the same sequence for the same 32-bit seed. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
