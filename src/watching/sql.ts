// Moved to store/sql.ts (the session list uses it too).
export { sql } from "../store/sql.ts";
