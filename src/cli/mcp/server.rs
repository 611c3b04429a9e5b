//! The MCP side: the handler `rmcp` serves on stdio — tools, resources
//! and subscriptions — over the [`Pool`] of registries.

use super::Mode;
use super::kinds::Refusal;
use super::pool::Pool;
use super::resources;
use super::subscriptions::Subscriptions;
use super::tools::{self, Access, Done, Entry, Progress};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::transport::IntoTransport;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use std::ops::ControlFlow;
use std::sync::Arc;

#[derive(Clone)]
pub struct Server {
    pool: Arc<Pool>,
    /// Every tool, built once: each call looks its tool up here.
    tools: Arc<Vec<Entry>>,
    mode: Mode,
    subscriptions: Arc<Subscriptions>,
}

/// Serve on stdin/stdout until the client goes; with `watch`, also watch
/// the registered locations and tell subscribers what changed.
pub async fn serve(pool: Arc<Pool>, mode: Mode, watch: bool) -> std::io::Result<()> {
    let server = Server {
        pool,
        tools: Arc::new(tools::catalogue()),
        mode,
        subscriptions: Arc::new(Subscriptions::default()),
    };
    let stop = super::following::start(&server.pool, &server.subscriptions, watch);
    let stdio = IntoTransport::<RoleServer, _, _>::into_transport(rmcp::transport::io::stdio());
    let running = server
        .serve(super::gate::Gate::new(stdio))
        .await
        .map_err(std::io::Error::other)?;
    let ended = running.waiting().await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    ended.map(|_| ()).map_err(std::io::Error::other)
}

impl Server {
    /// The tools this server's mode serves, with their schemas as they
    /// are now (`register_resource`'s from the addable types).
    async fn served_tools(&self) -> Result<Vec<rmcp::model::Tool>, Refusal> {
        let (tools, mode) = (self.tools.clone(), self.mode);
        self.pool
            .with(move |registry| {
                tools
                    .iter()
                    .filter(|tool| tool.served_in(mode))
                    .map(|tool| Ok(tool.to_tool(tool.input(registry)?)))
                    .collect()
            })
            .await
    }

    async fn run_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let name = request.name.to_string();
        let Some(index) = self.tools.iter().position(|t| t.name == name) else {
            return Err(ErrorData::invalid_params(
                format!("no tool named {name:?}; tools/list names them"),
                None,
            ));
        };
        let tools = self.tools.clone();
        if !tools[index].served_in(self.mode) {
            let why = match tools[index].access {
                Access::Admin => {
                    "it is an admin operation, served only when `agents mcp --allow-admin` started \
                     the server"
                }
                _ => "the server was started with --read-only",
            };
            return Ok(
                Refusal::new("not_allowed", format!("{name} is not served: {why}")).to_result(),
            );
        }
        let arguments = request.arguments.unwrap_or_default();
        if self.mode == Mode::ReadOnly
            && name == "resolve_environment"
            && arguments.get("activate") == Some(&serde_json::Value::Bool(true))
        {
            return Ok(Refusal::new(
                "not_allowed",
                "activate starts containers; the server was started with --read-only",
            )
            .to_result());
        }
        let progress = self.progress_sender(&context);
        let cancel = context.ct.clone();
        // The client's roots, once it answered (when it declares any).
        let roots = self.pool.scope().current(&context.peer).await;
        // The answer is what happened: a cancelled discovery, registration
        // or refresh stops at its next handler call and says what stays
        // written; any other operation runs to its end (MCP lets a server
        // finish what cannot be stopped) and answers it.
        let outcome = self
            .pool
            .with(move |registry| {
                registry.set_roots(Some(roots));
                let mut progress = progress;
                if cancel.is_cancelled() {
                    return Err(Refusal::new(
                        "cancelled",
                        "the request was cancelled before it started; nothing was done",
                    ));
                }
                let tool = &tools[index];
                tool.call(registry, arguments, &mut progress)
            })
            .await;
        match outcome {
            Ok(done) => {
                self.subscriptions.changed(&self.pool, &done.changed).await;
                Ok(success(done))
            }
            Err(refusal) => Ok(refusal.to_result()),
        }
    }

    /// Progress notifications for this request, if the client asked for
    /// them (a progress token), sent in order from the blocking call; each
    /// answers `Break` once the request is cancelled.
    fn progress_sender(&self, context: &RequestContext<RoleServer>) -> Progress {
        let cancel = context.ct.clone();
        let go_on = move || {
            hold_for_cancellation(&|| cancel.is_cancelled());
            if cancel.is_cancelled() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let Some(token) = context.meta.get_progress_token() else {
            return Box::new(move |_, _, _| go_on());
        };
        let (send, mut receive) =
            tokio::sync::mpsc::unbounded_channel::<ProgressNotificationParam>();
        let peer = context.peer.clone();
        tokio::spawn(async move {
            while let Some(note) = receive.recv().await {
                if peer.notify_progress(note).await.is_err() {
                    break;
                }
            }
        });
        Box::new(move |done, total, message| {
            let mut note = ProgressNotificationParam::new(token.clone(), done as f64);
            note.total = total.map(|t| t as f64);
            note.message = Some(message);
            let _ = send.send(note);
            go_on()
        })
    }
}

/// A test seam ([`super::test_seam`]): with
/// `AGENTS_TEST_MCP_HOLD_PROGRESS` set, a long call waits at each
/// progress point until its request is cancelled (at most 60 s), so a
/// test cancels it mid-operation without racing the operation's end.
fn hold_for_cancellation(cancelled: &dyn Fn() -> bool) {
    if super::test_seam("AGENTS_TEST_MCP_HOLD_PROGRESS").is_none() {
        return;
    }
    for _ in 0..6000 {
        if cancelled() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// A test seam ([`super::test_seam`]): with
/// `AGENTS_TEST_MCP_LATE_LISTENER` set, a listen waits half a second
/// after its acknowledgment before adding its listener, widening the
/// window a change told in between must not be lost in.
async fn late_listener() {
    if super::test_seam("AGENTS_TEST_MCP_LATE_LISTENER").is_some() {
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
}

fn success(done: Done) -> CallToolResult {
    let mut result = CallToolResult::structured(done.value);
    result.content = vec![ContentBlock::text(done.text)];
    result
}

fn refused(refusal: Refusal) -> ErrorData {
    ErrorData::internal_error(
        refusal.message,
        Some(serde_json::json!({"kind": refusal.kind})),
    )
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_resources_subscribe()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("agents", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "The resource registry: resource types, registered resources (git checkouts, \
                 directories, files, branches, containers) linked into a DAG, and sandboxes to \
                 change them safely. Trusting a repository's devcontainer is a person's decision \
                 and is not a tool.",
            )
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // Told of the lists' changes from now on (`following`).
        self.subscriptions.add_session(context.peer.clone());
        // A first call may have asked already (it can arrive first).
        self.pool.scope().ask(context.peer, true);
    }

    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        self.pool.scope().ask(context.peer, false);
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self.served_tools().await.map_err(refused)?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.run_tool(request, context).await.map(Into::into)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let cursor = request.and_then(|r| r.cursor);
        resources::list(&self.pool, cursor).await.map_err(|r| {
            if r.kind == "invalid_arguments" {
                ErrorData::invalid_params(r.message, None)
            } else {
                refused(r)
            }
        })
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            resources::template(),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        resources::read(&self.pool, &request.uri)
            .await
            .map(Into::into)
            .map_err(|r| match r.kind {
                "not_found" | "invalid_arguments" => ErrorData::resource_not_found(
                    r.message,
                    Some(serde_json::json!({"uri": request.uri})),
                ),
                _ => refused(r),
            })
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let id = resources::resolve(&self.pool, &request.uri)
            .await
            .map_err(|r| ErrorData::resource_not_found(r.message, None))?;
        self.subscriptions
            .add_legacy(request.uri, id, context.peer.clone());
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscriptions.remove_legacy(&request.uri);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let uris: Vec<String> = requested
            .resource_subscriptions
            .iter()
            .flatten()
            .filter(|uri| resources::key_of(uri).is_some())
            .cloned()
            .collect();
        let mut accepted = SubscriptionFilter::new();
        accepted.resource_subscriptions = Some(uris);
        // Both lists' changes are told (`following`), when asked for.
        accepted.resources_list_changed = requested.resources_list_changed;
        accepted.tools_list_changed = requested.tools_list_changed;
        // Acknowledged next, before `listen` adds the listener: mark where
        // this listen's changes start.
        self.subscriptions.accepting();
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        late_listener().await;
        let mut ids = Vec::new();
        for uri in context.accepted().resource_subscriptions.iter().flatten() {
            if let Ok(id) = resources::resolve(&self.pool, uri).await {
                ids.push((uri.clone(), id));
            }
        }
        let token = self
            .subscriptions
            .add_listener(ids, context.sink().clone())
            .await;
        context.cancelled().await;
        self.subscriptions.remove_listener(token);
        Ok(())
    }
}
