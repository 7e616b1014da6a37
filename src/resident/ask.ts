/**
 * A status or stop request to a resident judge: what `verdict resident` shows, and how a judge that is
 * starting finds out whether another already listens at its address.
 */
import { lineReader, PROTOCOL, type Frame, type Request } from "./protocol.ts";

type JudgeStatus = Extract<Frame, { t: "status" }>;

/**
 * One status or stop request to the socket at `path`: the judge's status; `none` when nobody listens
 * there (its judge was killed: the socket is litter); `silent` when a judge is there but did not answer
 * within a second (busy; left alone).
 */
export async function askJudge(path: string, what: "status" | "stop"): Promise<JudgeStatus | "none" | "silent"> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("silent"), 1000);
    const done = (result: JudgeStatus | "none" | "silent") => {
      clearTimeout(timer);
      resolve(result);
    };
    const onLine = lineReader<Frame>((frame) => {
      if (frame.t === "status") done(frame);
    });
    Bun.connect({
      unix: path,
      socket: {
        open(socket) {
          socket.write(JSON.stringify({ v: PROTOCOL, t: what } satisfies Request) + "\n");
        },
        data(_socket, data) {
          try {
            onLine(data.toString());
          } catch {
            done("silent");
          }
        },
        close: () => done("silent"),
        error: () => done("silent"),
      },
    }).catch(() => done("none"));
  });
}
