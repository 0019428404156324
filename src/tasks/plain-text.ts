// Turns a task's captured terminal output into the lines a person would have seen.
// Tools colour their output and redraw progress bars in place, so the raw file holds
// escape sequences and carriage returns that mean nothing once read back as text.

// One alternation, scanned left to right, so that removing one sequence can never
// glue the pieces of another together into something that looks like a third.
const ESCAPES = new RegExp(
  [
    // OSC: window titles, hyperlinks (ESC ] 8 ;; url ST text ESC ] 8 ;; ST). Ends at BEL or
    // ST; a file cut mid-sequence has no terminator, so stop at the line's end instead.
    String.raw`(?:\x1b\]|\x9d)[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?`,
    // DCS, SOS, PM, APC strings: ESC P / X / ^ / _ … ST.
    String.raw`\x1b[PX^_][^\x1b\n]*(?:\x1b\\)?`,
    // CSI: colours, cursor moves, erase-line. Parameter, intermediate, final bytes.
    String.raw`(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]`,
    // A CSI cut off by the end of the capture (the writer was mid-sequence).
    String.raw`\x1b\[[0-?]*[ -/]*$`,
    // Everything else ESC starts: charset selection ESC ( B, keypad modes, ESC 7 / ESC 8.
    String.raw`\x1b[ -/]*[0-~]`,
  ].join("|"),
  "g",
);

// Control characters left after the sequences are gone (a lone ESC, BEL, C1 codes);
// tab stays because it is layout.
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

export function stripAnsi(text: string): string {
  return text.replace(ESCAPES, "");
}

// A terminal returns to the start of the line on a bare \r and the next text overwrites
// it; progress bars rely on that. The last thing written is what was left on screen.
// A line that ends in \r ("50%\r" then the next update) keeps its last non-empty part.
function settleLine(line: string): string {
  let text = line;
  if (text.includes("\r")) {
    const parts = text.split("\r");
    text = "";
    for (let i = parts.length - 1; i >= 0; i--) {
      if (parts[i] !== "") {
        text = parts[i];
        break;
      }
    }
  }
  // Spinners step back with backspace and draw the next frame over the last one.
  if (text.includes("\b")) {
    const out: string[] = [];
    for (const ch of text) {
      if (ch === "\b") out.pop();
      else out.push(ch);
    }
    text = out.join("");
  }
  // Trailing blanks are invisible on a terminal and would stop equal lines matching.
  return text.replace(CONTROLS, "").trimEnd();
}

export function toPlainLines(raw: string): string[] {
  if (raw === "") return [];
  const lines = stripAnsi(raw).replace(/\r\n/g, "\n").split("\n");
  // A final newline ends the last line rather than starting an empty one.
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.map(settleLine);
}
