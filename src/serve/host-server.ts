import { ProtocolError, Server, type ServerContext } from '@modelcontextprotocol/server';
import {
  AbortError,
  type CallToolResult,
  McpError,
  NameCollisionError,
  type RequestOptions,
  RequestTimeoutError,
  ServerUnavailableError,
  UnknownNameError,
} from '../index.js';
import type { Gateway } from './gateway.js';
import { InputRounds } from './input-rounds.js';

/** JSON-RPC's invalid-params code: what the protocol answers for an unknown tool, prompt or resource. */
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

/**
 * One host session's MCP server: the SDK's low-level Server, whose handlers answer from the pool
 * (lists merged and filtered, calls routed), so every schema goes to the host as its server wrote it.
 */
export function hostServer(gateway: Gateway): Server {
  const { pool, settings, lists } = gateway;
  const server = new Server(settings.info, {
    capabilities: {
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true, subscribe: true },
      completions: {},
      logging: {},
    },
  });
  // The lists go out as the servers declared them: the library's types are not asked to agree.
  server.setRequestHandler(
    'tools/list',
    async () => ({ tools: (await lists.get('tools')).declared }) as never,
  );
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const call = await toolCall(gateway, name, args);
    return routed(gateway, ctx, call.server, call.run) as Promise<CallToolResult & Record<string, unknown>>;
  });
  server.setRequestHandler(
    'prompts/list',
    async () => ({ prompts: (await lists.get('prompts')).declared }) as never,
  );
  server.setRequestHandler('prompts/get', async (request, ctx) => {
    const { name, arguments: args } = request.params;
    const owner = (await lists.find('prompts', name))?.server ?? settings.soleServer;
    const params = { name, ...(args ? { arguments: args } : {}) };
    return routed(gateway, ctx, owner ?? '', (options) =>
      failAsError(() =>
        owner === settings.soleServer && owner !== undefined
          ? soleClient(gateway, owner).getPrompt(params, options)
          : pool.getPrompt(params, options),
      ),
    ) as never;
  });
  server.setRequestHandler(
    'resources/list',
    async () => ({ resources: (await lists.get('resources')).declared }) as never,
  );
  server.setRequestHandler(
    'resources/templates/list',
    async () => ({ resourceTemplates: (await lists.get('resourceTemplates')).declared }) as never,
  );
  server.setRequestHandler('resources/read', async (request, ctx) =>
    failAsError(() =>
      pool.readResource(
        { uri: request.params.uri, ...(settings.soleServer ? { server: settings.soleServer } : {}) },
        forwardedOptions(gateway, ctx, ctx.mcpReq.signal),
      ),
    ),
  );
  server.setRequestHandler('resources/subscribe', async (request, ctx) => {
    const { uri } = request.params;
    await failAsError(async () => {
      const client = pool.get(await resourceServer(gateway, uri));
      await client?.subscribeResource(uri, forwardedOptions(gateway, ctx, ctx.mcpReq.signal));
    });
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', async (request, ctx) => {
    const { uri } = request.params;
    await failAsError(async () => {
      const client = pool.get(await resourceServer(gateway, uri));
      await client?.unsubscribeResource(uri, forwardedOptions(gateway, ctx, ctx.mcpReq.signal));
    });
    return {};
  });
  server.setRequestHandler('completion/complete', async (request, ctx) => {
    const { ref, argument, context } = request.params;
    return failAsError(async () => {
      const [owner, own] = await completionTarget(
        gateway,
        ref as { type: string; name?: string; uri?: string },
      );
      const client = pool.get(owner);
      if (client === undefined) throw new ServerUnavailableError(owner, 'idle', `${owner} is not running`);
      return client.complete(
        { ref: own, argument, ...(context ? { context } : {}) },
        forwardedOptions(gateway, ctx, ctx.mcpReq.signal),
      ) as Promise<never>;
    });
  });
  gateway.addHost(server);
  return server;
}

/** Where a host's tool call goes, and the call itself. */
export interface ToolCall {
  /** The pool's name of the server that has the tool. */
  readonly server: string;
  /** Calls the tool; the host's outcome (see `answer`). */
  readonly run: (options: RequestOptions) => Promise<CallToolResult>;
}

/**
 * The server a host's tool call goes to: the one whose tool it is, or the sole server behind the
 * gateway for a name no list has (that server answers for its own names). A name nobody has is
 * the host's invalid-params error, naming the filters that may hide it.
 */
export async function toolCall(
  gateway: Gateway,
  name: string,
  args: Record<string, unknown> | undefined,
): Promise<ToolCall> {
  const { pool, settings, lists } = gateway;
  const tool = await lists.find('tools', name);
  const sole = settings.soleServer;
  if (
    tool === undefined &&
    sole !== undefined &&
    settings.filter.passes({ name, server: sole, originalName: name })
  ) {
    return {
      server: sole,
      run: (options) =>
        answer(() => soleClient(gateway, sole).callTool({ name, arguments: args ?? {} }, options)),
    };
  }
  if (tool === undefined) {
    throw new ProtocolError(
      INVALID_PARAMS,
      `Unknown tool: ${name} (the gateway has no tool of that name, or its --allow/--deny or allowTools/denyTools filters hide it)`,
    );
  }
  return {
    server: tool.server,
    run: (options) => answer(() => pool.callTool({ name, arguments: args ?? {} }, options)),
  };
}

/**
 * Runs a request routed to `server`, whose requests to the client go to the host: a legacy host is
 * asked them as requests of the gateway's own; a modern host gets them in `input_required` rounds
 * (InputRounds), the work behind the gateway staying under way between them.
 */
function routed<T>(
  gateway: Gateway,
  ctx: ServerContext,
  server: string,
  work: (options: RequestOptions) => Promise<T>,
): Promise<unknown> {
  if (InputRounds.isModern(ctx)) {
    return gateway.rounds.run(ctx, (asker, signal) =>
      gateway.during(server, asker, () => work(forwardedOptions(gateway, ctx, signal))),
    );
  }
  return gateway.during(server, gateway.legacyAsker(ctx), () =>
    work(forwardedOptions(gateway, ctx, ctx.mcpReq.signal)),
  );
}

/** The host's cancellation, the gateway's timeouts, and the server's progress sent on to the host. */
function forwardedOptions(gateway: Gateway, ctx: ServerContext, signal: AbortSignal): RequestOptions {
  return callOptions(gateway, signal, ctx.mcpReq._meta?.progressToken, (notification) =>
    ctx.mcpReq.notify(notification as never),
  );
}

/**
 * A forwarded request's options: the host's signal, the gateway's timeouts (progress restarts the
 * wait), and, when the host gave a progress token, the server's progress sent to the host under it.
 */
export function callOptions(
  gateway: Gateway,
  signal: AbortSignal,
  progressToken: unknown,
  notify: (notification: {
    method: 'notifications/progress';
    params: Record<string, unknown>;
  }) => Promise<void>,
): RequestOptions {
  const { requestTimeout, maxTime } = gateway.settings;
  return {
    signal,
    timeout: requestTimeout,
    resetTimeoutOnProgress: true,
    maxTotalTimeout: maxTime ?? requestTimeout * 10,
    ...(typeof progressToken === 'string' || typeof progressToken === 'number'
      ? {
          onProgress: (progress) => {
            notify({ method: 'notifications/progress', params: { progressToken, ...progress } }).catch(
              () => {},
            );
          },
        }
      : {}),
  };
}

/** The sole server's Client, for a name no list has; a server not running is an error naming its state. */
function soleClient(gateway: Gateway, server: string) {
  const client = gateway.pool.get(server);
  if (client === undefined) throw new ServerUnavailableError(server, 'idle', `${server} is not running`);
  return client;
}

/** The server that lists a resource (or the sole server behind the gateway). */
async function resourceServer(gateway: Gateway, uri: string): Promise<string> {
  const listed = await gateway.lists.find('resources', uri);
  if (listed) return listed.server;
  if (gateway.settings.soleServer !== undefined) return gateway.settings.soleServer;
  throw new UnknownNameError('resource', uri, `no server behind the gateway lists the resource ${uri}`);
}

/** Which server a completion is for, and the reference in that server's own names. */
async function completionTarget(
  gateway: Gateway,
  ref: { type: string; name?: string; uri?: string },
): Promise<[string, { type: string; name?: string; uri?: string }]> {
  if (ref.type === 'ref/prompt') {
    const prompt = await gateway.lists.find('prompts', ref.name ?? '');
    if (prompt !== undefined) return [prompt.server, { ...ref, name: prompt.originalName }];
    throw new UnknownNameError(
      'prompt',
      String(ref.name),
      `no server behind the gateway has a prompt ${ref.name}`,
    );
  }
  const template = await gateway.lists.find('resourceTemplates', String(ref.uri));
  if (template) return [template.server, ref];
  throw new UnknownNameError(
    'resource',
    String(ref.uri),
    `no server behind the gateway has the template ${ref.uri}`,
  );
}

/**
 * A tool call's outcome for the host: the server's result or its JSON-RPC error as they came; a
 * server that is down, a timeout or a lost connection as a tool error result naming the server
 * and its state, so that the model reads why and the host keeps its session.
 */
async function answer(call: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    // resultType is the modern era's word between the gateway and its server; the host's era has its own.
    const result = (await call()) as CallToolResult & { resultType?: unknown };
    if (!('resultType' in result)) return result;
    const { resultType: _resultType, ...rest } = result;
    return rest as CallToolResult;
  } catch (error) {
    if (error instanceof McpError || error instanceof AbortError) throw asProtocolError(error);
    if (error instanceof UnknownNameError || error instanceof NameCollisionError)
      throw asProtocolError(error);
    return {
      content: [{ type: 'text', text: `conduit-mcp gateway: ${(error as Error).message}` }],
      isError: true,
    };
  }
}

/** Runs `work`; a failure becomes the JSON-RPC error the host gets (the server's own, or one naming the server). */
async function failAsError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asProtocolError(error);
  }
}

function asProtocolError(error: unknown): ProtocolError {
  if (error instanceof McpError) return new ProtocolError(error.code, error.message, error.data);
  if (error instanceof UnknownNameError) return new ProtocolError(INVALID_PARAMS, error.message);
  if (error instanceof RequestTimeoutError)
    return new ProtocolError(INTERNAL_ERROR, `conduit-mcp gateway: ${error.message}`);
  return new ProtocolError(INTERNAL_ERROR, `conduit-mcp gateway: ${(error as Error).message}`);
}
