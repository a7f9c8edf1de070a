/** A generator of numbers in [0, 1), the same sequence for the same 32-bit seed (mulberry32). */
export function seededRandom(seed: number): () => number;
