// Code points a terminal acts on instead of drawing: DEL, the C1 controls (U+009B CSI and U+009D OSC
// start escape sequences) and the bidirectional controls (they reorder what it draws). One class for
// every text that reaches a terminal from outside: provider results (src/context/renderer.ts) and the
// paths the admin CLI's refusals echo (src/policy/quote.ts).
export const TERMINAL_CONTROLS = '\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
