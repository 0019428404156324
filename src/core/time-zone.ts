import { Temporal } from "temporal-polyfill";

/** The zone's canonical IANA id, or null. Temporal also takes offsets like "+01:00": not a zone. */
export function canonicalZone(tz: unknown): string | null {
  if (typeof tz !== "string" || !tz.trim() || /^[+\-\u2212]|^\d/.test(tz.trim())) return null;
  try {
    return Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(tz.trim()).timeZoneId;
  } catch {
    return null;
  }
}
