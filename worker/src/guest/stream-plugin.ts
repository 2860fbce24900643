/**
 * Streaming for just-bash, which returns a script's output only when the script ends: this
 * transform wraps each statement whose output would reach the script's own stdout/stderr in
 * `{ …; } >>/dev/.exec/1 2>>/dev/.exec/2` (the output device), so its output leaves as soon as
 * the statement finishes. It descends into loops, ifs, cases and groups that have no
 * redirections of their own (each iteration then streams), and leaves alone what must keep
 * its output: function bodies, command substitutions (words are never entered), background
 * statements and anything inside a pipeline. A group is not a subshell: variables, `cd`,
 * `exit`, `break` and `$?` behave as before. Only the first script a Bash runs is transformed
 * (the top level); nested `bash -c`, `source` and `eval` run as written.
 */
import type { CommandNode, ScriptNode, SimpleCommandNode, StatementNode, TransformPlugin } from "just-bash";
import { OUTPUT_DEVICE } from "./output-device.ts";

type Redirection = SimpleCommandNode["redirections"][number];

function appendTo(fd: number, path: string): Redirection {
  return {
    type: "Redirection",
    fd,
    operator: ">>",
    target: { type: "Word", parts: [{ type: "Literal", value: path }] },
  };
}

function wrap(statement: StatementNode): StatementNode {
  return {
    type: "Statement",
    pipelines: [
      {
        type: "Pipeline",
        negated: false,
        commands: [
          {
            type: "Group",
            body: [statement],
            redirections: [appendTo(1, `${OUTPUT_DEVICE}/1`), appendTo(2, `${OUTPUT_DEVICE}/2`)],
          },
        ],
      },
    ],
    operators: [],
    background: false,
  };
}

function streamAll(statements: StatementNode[]): StatementNode[] {
  return statements.map(stream);
}

/** The compound command with its bodies streamed, or undefined when it must be wrapped whole. */
function descend(command: CommandNode): CommandNode | undefined {
  switch (command.type) {
    case "For":
    case "CStyleFor":
      return command.redirections.length === 0 ? { ...command, body: streamAll(command.body) } : undefined;
    case "While":
    case "Until":
      return command.redirections.length === 0
        ? { ...command, condition: streamAll(command.condition), body: streamAll(command.body) }
        : undefined;
    case "If":
      return command.redirections.length === 0
        ? {
            ...command,
            clauses: command.clauses.map((c) => ({
              condition: streamAll(c.condition),
              body: streamAll(c.body),
            })),
            elseBody: command.elseBody === null ? null : streamAll(command.elseBody),
          }
        : undefined;
    case "Case":
      return command.redirections.length === 0
        ? { ...command, items: command.items.map((item) => ({ ...item, body: streamAll(item.body) })) }
        : undefined;
    case "Group":
      return command.redirections.length === 0 ? { ...command, body: streamAll(command.body) } : undefined;
    default:
      return undefined;
  }
}

function stream(statement: StatementNode): StatementNode {
  if (statement.background || statement.deferredError !== undefined) return statement;
  const [pipeline, ...morePipelines] = statement.pipelines;
  if (pipeline !== undefined && morePipelines.length === 0 && !pipeline.negated && pipeline.timed !== true) {
    const [command, ...moreCommands] = pipeline.commands;
    if (command !== undefined && moreCommands.length === 0) {
      if (command.type === "FunctionDef") return statement;
      const inner = descend(command);
      if (inner !== undefined) return { ...statement, pipelines: [{ ...pipeline, commands: [inner] }] };
    }
  }
  return wrap(statement);
}

/** Streams the top-level script (see the file header); later scripts pass through. */
export class StreamPlugin implements TransformPlugin {
  readonly name = "computer-stream";
  #done = false;

  transform(context: { ast: ScriptNode; metadata: Record<string, unknown> }): { ast: ScriptNode } {
    if (this.#done) return { ast: context.ast };
    this.#done = true;
    return { ast: { ...context.ast, statements: streamAll(context.ast.statements) } };
  }
}
