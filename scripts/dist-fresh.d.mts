// Types of dist-fresh.mjs (plain JavaScript so it runs before anything is compiled).
export function newestSource(root: string): number;
export function buildInfo(root: string): { sourcesReadAt: number; entries: string[] } | null;
export function distFresh(root: string): boolean;
