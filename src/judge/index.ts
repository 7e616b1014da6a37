/**
 * Judging a command or a turn's end: the orchestration (answerers, model calls, cache, log) over the pure
 * core (src/core, imported from there). Tool calls are judged by ./tool.ts.
 */
export { forgetDiskFacts, judgeCommand, judgeTurnEnd, type CommandJudgment, type TurnJudgment } from "./judge.ts";
