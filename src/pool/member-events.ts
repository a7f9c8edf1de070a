import type { Client } from '../client/client.js';
import type { ListKind } from './list-cache.js';
import type { MemberShared, PoolMember } from './member.js';

const RELAYED = ['notification', 'log', 'resourceUpdated'] as const;

/** Events the pool only passes on, listened to on the Clients once the pool has a listener for them. */
export type RelayedEvent = (typeof RELAYED)[number];

export function isRelayedEvent(event: string | symbol): event is RelayedEvent {
  return (RELAYED as readonly (string | symbol)[]).includes(event);
}

/**
 * Listens to a member's new Client. Each listener updates the member, then tells the pool's
 * listeners: added as the Client is made, they run before any listener of the host's on that
 * Client, so that the pool's status already shows the change. A Client that restart() replaced
 * is no longer the member's, and its late events are ignored.
 */
export function listenToClient(client: Client, member: PoolMember, shared: MemberShared): void {
  const server = member.name;
  const { emit } = shared;
  const current = () => member.client === client;
  client.on('booted', () => {
    if (current()) member.onBooted();
  });
  client.on('ready', (event) => {
    if (!current()) return;
    member.onReady();
    emit('serverReady', { server, ...event });
    emit('ready', { server, ...event });
  });
  client.on('disconnected', (reason) => {
    if (!current()) return;
    member.onDisconnected(reason);
    emit('disconnected', { server, reason });
  });
  client.on('reconnecting', (event) => {
    if (!current()) return;
    member.onReconnecting(event);
    const { state, nextAttemptAt } = member;
    emit('serverError', { server, error: event.error, state, nextAttemptAt });
    emit('reconnecting', { server, ...event });
  });
  client.on('closed', (reason) => {
    if (!current()) return;
    member.onClientClosed(reason);
    emit('serverClosed', { server, reason });
    emit('closed', { server, reason });
  });
  const listsChanged = (event: string, kinds: readonly ListKind[]) => {
    if (!current()) return;
    member.onListsChanged(kinds);
    emit(event, { server });
  };
  client.on('toolsListChanged', () => listsChanged('toolsListChanged', ['tools']));
  client.on('promptsListChanged', () => listsChanged('promptsListChanged', ['prompts']));
  client.on('resourcesListChanged', () =>
    listsChanged('resourcesListChanged', ['resources', 'resourceTemplates']),
  );
  for (const event of shared.relayed) relayEvent(member, event, shared);
}

/** Passes one relayed event of a member's Client (if it has one) on to the pool, with the server's name. */
export function relayEvent(member: PoolMember, event: RelayedEvent, shared: MemberShared): void {
  const client = member.client;
  client?.on(event, (payload: unknown) => {
    if (member.client !== client) return;
    const server = member.name;
    shared.emit(
      event,
      event === 'notification' ? { server, notification: payload } : { server, ...(payload as object) },
    );
  });
}
