/** Empty values count as no argument: some providers send every field (seed §8). */
export function isEmpty(v: unknown): boolean {
  return v === null || v === undefined || v === "" || v === false || (Array.isArray(v) && v.length === 0);
}
