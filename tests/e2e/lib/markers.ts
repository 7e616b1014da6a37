// The marker rules the real-host tests' policies are made of: each decides a `touch` of its marker file
// outright, with a reason (E2E_ALLOWED, E2E_DENIED, E2E_ASKED) the tests look for in what the host says.

const RULES = {
  allowed: `  - id: e2e-allowed
    match: { program: touch, args_any: ["*e2e-allowed*"] }
    act: edit
    undo: 0
    decision: allow
    reason: "E2E_ALLOWED: the allowed marker may be touched"
`,
  denied: `  - id: e2e-denied
    match: { program: touch, args_any: ["*e2e-denied*"] }
    act: delete
    undo: 3
    decision: deny
    reason: "E2E_DENIED: the denied marker must not be touched"
`,
  asked: `  - id: e2e-asked
    match: { program: touch, args_any: ["*e2e-asked*"] }
    act: delete
    undo: 3
    decision: ask
    reason: "E2E_ASKED: the asked marker needs a person"
`,
};

/** A policy's `rules:` section holding the named marker rules, in the order given. */
export function markerRules(...which: (keyof typeof RULES)[]): string {
  return `\nrules:\n${which.map((name) => RULES[name]).join("")}`;
}
