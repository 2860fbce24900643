/**
 * Test-only Worker for the "vfs-workerd" vitest project. `VfsTestObject` is an empty
 * SQLite-backed Durable Object: tests run their bodies inside it with `runInDurableObject`.
 */
import { DurableObject } from "cloudflare:workers";

/** The bindings of the test Worker (see ./wrangler.jsonc). */
export interface VfsTestEnv {
  VFS_TEST: DurableObjectNamespace<VfsTestObject>;
}

/** A Durable Object with no behaviour of its own; its storage is what the tests use. */
export class VfsTestObject extends DurableObject<VfsTestEnv> {}

export default {
  fetch(): Response {
    return new Response("vfs test worker", { status: 404 });
  },
} satisfies ExportedHandler<VfsTestEnv>;
