// The conformance client: the program the official @modelcontextprotocol/conformance runner
// drives (`conformance client --command "node scripts/conformance/client.mjs" ...`). The server
// URL is its last argument, the scenario is in MCP_CONFORMANCE_SCENARIO and its inputs in
// MCP_CONFORMANCE_CONTEXT. It uses only the built package (dist/) through its public API, with
// protocol 'auto': the era of each mock is found by the library's own detection, never told.
import { Client } from '../../dist/index.js';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');

/** Accepts an elicitation with every default its schema names (SEP-1034). */
function acceptWithDefaults(params) {
  const content = {};
  const properties = params?.requestedSchema?.properties ?? {};
  for (const [name, schema] of Object.entries(properties)) {
    if (schema && 'default' in schema) content[name] = schema.default;
    else if (schema?.type === 'boolean') content[name] = true;
  }
  if (Object.keys(content).length === 0) content.confirmed = true;
  return { action: 'accept', content };
}

let beforeFirstRetry;

/** A headless user: fetches the authorization URL (the mock approves at once) and returns the redirect. */
async function consent(authorizationUrl) {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (!location) throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
  return location;
}

/**
 * OAuth for the auth/* scenarios, from what MCP_CONFORMANCE_CONTEXT gives: the options a host
 * would set. The mocks run on localhost, so private networks are allowed (off by default: SSRF).
 */
function authOptions() {
  if (!scenario.startsWith('auth/')) return undefined;
  if (scenario === 'auth/wif-jwt-bearer') {
    // Workload identity federation: the workload's JWT from its platform, traded at the token endpoint.
    return {
      allowPrivateNetwork: true,
      grant: 'jwt_bearer',
      assertion: () => context.valid_jwt,
      clientId: context.client_id,
    };
  }
  if (
    scenario === 'auth/enterprise-managed-authorization' ||
    scenario === 'auth/cross-app-access-complete-flow'
  ) {
    // Enterprise-managed authorization (SEP-990): the user's ID token from the enterprise IdP,
    // exchanged there for an ID-JAG, traded at the MCP server's authorization server.
    return {
      allowPrivateNetwork: true,
      grant: 'enterprise',
      idToken: () => context.idp_id_token,
      idpTokenEndpoint: context.idp_token_endpoint,
      idpIssuer: context.idp_issuer,
      idpClientId: context.idp_client_id,
      clientId: context.client_id,
      clientSecret: context.client_secret,
    };
  }
  if (scenario.startsWith('auth/client-credentials-')) {
    return {
      allowPrivateNetwork: true,
      grant: 'client_credentials',
      clientId: context.client_id,
      ...(context.private_key_pem
        ? { privateKey: context.private_key_pem, signingAlgorithm: context.signing_algorithm }
        : { clientSecret: context.client_secret }),
    };
  }
  return {
    allowPrivateNetwork: true,
    onAuthorizationUrl: consent,
    clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
    ...(context.client_id ? { clientId: context.client_id } : {}),
    ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
    ...(context.issuer ? { issuer: context.issuer } : {}),
  };
}
const auth = authOptions();

const client = new Client({
  name: 'conformance',
  clientInfo: { name: 'conduit-mcp-conformance', version: '1.0.0' },
  transport: { type: 'http', url, ...(auth ? { auth } : {}) },
  reconnect: { maxReconnects: 0 },
  handlers: {
    elicitation: async (params) => {
      const hook = beforeFirstRetry;
      beforeFirstRetry = undefined;
      if (hook) await hook();
      return acceptWithDefaults(params);
    },
    sampling: async () => ({ role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'none' }),
    roots: async () => ({ roots: [] }),
  },
});

function argumentsFor(tool) {
  const given = context.toolCalls?.find((call) => call.name === tool.name);
  if (given) return given.arguments;
  const args = {};
  for (const [name, schema] of Object.entries(tool.inputSchema?.properties ?? {})) {
    if (schema?.type === 'number' || schema?.type === 'integer') args[name] = name === 'b' ? 3 : 2;
    else if (schema?.type === 'string') args[name] = 'conformance';
    else if (schema?.type === 'boolean') args[name] = true;
  }
  return args;
}

async function attempt(what, run) {
  try {
    return await run();
  } catch (error) {
    console.error(`${what}: ${error.message}`);
    return undefined;
  }
}

async function exerciseEverything() {
  const capabilities = client.serverCapabilities ?? {};
  if (capabilities.tools) {
    const { tools } = await client.listTools();
    const calls = context.toolCalls
      ? tools.filter((t) => context.toolCalls.some((c) => c.name === t.name))
      : tools;
    for (const tool of calls) {
      await attempt(`tools/call ${tool.name}`, () =>
        client.callTool({ name: tool.name, arguments: argumentsFor(tool) }),
      );
    }
  }
  if (capabilities.resources) {
    const { resources } = await client.listResources();
    for (const resource of resources) {
      await attempt(`resources/read ${resource.uri}`, () => client.readResource({ uri: resource.uri }));
    }
  }
  if (capabilities.prompts) {
    const { prompts } = await client.listPrompts();
    for (const prompt of prompts) {
      await attempt(`prompts/get ${prompt.name}`, () =>
        client.getPrompt({ name: prompt.name, arguments: {} }),
      );
    }
  }
}

/**
 * A host's use of skills (SEP-2640): list them (reading no file), then load each skill (its
 * SKILL.md, verified) and only after that read its other files, each verified on read.
 */
async function useSkills() {
  const { skills } = await client.listSkills();
  for (const entry of skills) {
    await client.loadSkill(entry);
    for (const file of Array.isArray(entry.resources) ? entry.resources : []) {
      if (file.uri !== entry.uri) await client.readSkillFile(entry, file.uri);
    }
  }
}

const scenarios = {
  'sep-2640-client-no-prefetch': async () => {
    await client.listSkills();
  },
  'sep-2640-client-verify-digest': useSkills,
  'sep-2640-client-verify-size': useSkills,
  'sep-2640-client-verify-frontmatter': useSkills,
  'json-schema-ref-no-deref': async () => {
    await client.listTools();
  },
  'json-schema-2020-12-preservation': async () => {
    const { tools } = await client.listTools();
    const focal = tools.find((t) => t.name === 'json_schema_2020_12_tool');
    if (!focal) throw new Error('json_schema_2020_12_tool is not listed');
    await client.callTool({ name: 'json_schema_echo', arguments: { schema: focal.inputSchema } });
  },
  'sep-2322-client-request-state': async () => {
    await client.listTools();
    // An unrelated call between the first answer and its retry must carry no MRTR state.
    beforeFirstRetry = () => client.callTool({ name: 'test_mrtr_unrelated', arguments: {} });
    await client.callTool({ name: 'test_mrtr_echo_state', arguments: {} });
    await client.callTool({ name: 'test_mrtr_no_state', arguments: {} });
    await client.callTool({ name: 'test_mrtr_no_result_type', arguments: {} });
  },
};

let failed = false;
try {
  await client.connect();
  await (scenarios[scenario] ?? exerciseEverything)();
} catch (error) {
  failed = true;
  console.error(`conformance client (${scenario}): ${error.stack ?? error.message}`);
} finally {
  await client.close();
}
process.exitCode = failed ? 1 : 0;
