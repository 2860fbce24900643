/**
 * The base of the test daemons that stand in for computerd without pseudo-terminals (the
 * workerd suites and the e2e mirror daemon): every terminal call of DaemonApi fails with
 * ENOTSUP. Real terminals are tested against real computerd (test/e2e/terminals.test.ts).
 */
import type { DaemonApi } from "@computer/vfs/sync";
import { RpcTarget } from "capnweb";

function unsupported(): never {
  throw Object.assign(new Error("this test daemon has no terminals"), { code: "ENOTSUP" });
}

/** RpcTarget with DaemonApi's terminal methods refusing. */
export class WithoutTerminals
  extends RpcTarget
  implements Pick<DaemonApi, "openTerminal" | "writeTerminal" | "resizeTerminal" | "closeTerminal">
{
  openTerminal(): never {
    return unsupported();
  }
  writeTerminal(): never {
    return unsupported();
  }
  resizeTerminal(): never {
    return unsupported();
  }
  closeTerminal(): never {
    return unsupported();
  }
}
