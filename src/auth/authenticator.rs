//! A request's authentication: who its credentials name, counted against that user's rate
//! limit (a failed authentication against the client's address), and the organization as
//! authentication read it.
//!
//! When this isolate knows whom the key authenticated as last, the rate-limit count (a
//! Durable Object round trip) runs beside D1's authentication instead of after it; a count
//! made for a user the credentials turn out not to name is refunded. The same guess lets
//! an endpoint's reads ride in the batch that checks the credentials
//! ([`Authenticator::read_as_user`]), and lets a send plan from answers this isolate
//! remembers ([`Authenticator::recall_as_user`], the recalled send of
//! `actions::message_send`).

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

use team_chat_durable_objects::protocol::RateLimitDecision;
use worker::{D1Database, Env};

use super::{add_authentication, authenticate, check_authentication, last_key_owner, Credentials, Guard, ReadAsUser};
use crate::db::batch::Batch;
use crate::db::realms::RealmRow;
use crate::db::users::UserRow;
use crate::domain::users::SigningIn;
use crate::error::{ApiError, ApiResult};
use crate::platform::rate_limits::{self, Bucket, Rules};
use crate::platform::realm_cache::RealmState;
use crate::platform::remembered_reads::{self, Recall, Remembrance};

/// A rate-limit count made beside authentication, for the user the key last authenticated
/// as in this isolate.
struct EarlyCount {
    realm_id: i64,
    user_id: i64,
    decision: ApiResult<Option<RateLimitDecision>>,
}

pub struct Authenticator {
    env: Env,
    db: D1Database,
    realm_string_id: String,
    /// The API key (HTTP Basic) or browser session the request presents, if any.
    pub credentials: Option<Credentials>,
    client_ip: String,
    rules: Rules,
    realm: RefCell<Option<RealmRow>>,
    /// The rate limit this request was counted against, for the `X-RateLimit-*` headers.
    rate_limit: RefCell<Option<RateLimitDecision>>,
    /// A count made for the user remembered answers named ([`Self::recall_as_user`]),
    /// which the request's authentication then confirms or refunds like any early count.
    recalled_count: RefCell<Option<EarlyCount>>,
}

/// Whether [`Authenticator::read`] offers its answers for remembering.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Remember {
    Yes,
    No,
}

/// The user this isolate last authenticated these credentials as, with the organization's
/// state it holds: what a batch that folds authentication in is built as.
fn guessed_owner(credentials: Option<&Credentials>) -> Option<(Rc<RealmState>, UserRow)> {
    let user = last_key_owner(credentials)?;
    Some((crate::platform::realm_cache::any_cached(user.realm_id)?, user))
}

impl Authenticator {
    /// `db` is the organization's database, `client_ip` the address failed attempts count
    /// against.
    pub fn new(
        env: Env,
        db: D1Database,
        realm_string_id: String,
        credentials: Option<Credentials>,
        client_ip: String,
        rules: Rules,
    ) -> Self {
        Authenticator {
            env,
            db,
            realm_string_id,
            credentials,
            client_ip,
            rules,
            realm: RefCell::new(None),
            rate_limit: RefCell::new(None),
            recalled_count: RefCell::new(None),
        }
    }

    /// The addressed organization; `NONEXISTENT_SUBDOMAIN` when there is none.
    pub async fn realm(&self) -> ApiResult<RealmRow> {
        if let Some(realm) = self.realm.borrow().as_ref() {
            return Ok(realm.clone());
        }
        let realm = crate::db::realms::by_string_id(&self.db, &self.realm_string_id).await?.ok_or_else(ApiError::nonexistent_subdomain)?;
        *self.realm.borrow_mut() = Some(realm.clone());
        Ok(realm)
    }

    /// The organization (`NONEXISTENT_SUBDOMAIN` without one) and its user signing in with
    /// this login email, if any, read together (`crate::domain::users::realm_and_signing_in`).
    pub async fn realm_and_signing_in(&self, email: &str) -> ApiResult<(RealmRow, Option<SigningIn>)> {
        let (realm, signing_in) = crate::domain::users::realm_and_signing_in(&self.db, &self.realm_string_id, email).await?;
        let realm = realm.ok_or_else(ApiError::nonexistent_subdomain)?;
        *self.realm.borrow_mut() = Some(realm.clone());
        Ok((realm, signing_in))
    }

    /// The organization's settings and linkifiers (`crate::platform::realm_cache`): from the isolate's
    /// cache when the version this request's authentication read is current, else read now.
    pub async fn realm_state(&self, realm_id: i64) -> ApiResult<Rc<RealmState>> {
        crate::platform::realm_cache::load(&self.db, realm_id, self.settings_version(realm_id)).await
    }

    /// The settings version read with this request's authentication, if any.
    pub fn settings_version(&self, realm_id: i64) -> Option<i64> {
        self.realm.borrow().as_ref().filter(|r| r.id == realm_id).map(|r| r.settings_version)
    }

    /// Whom this isolate last authenticated the credentials as, with the organization's
    /// state it holds: a guess, which only the credentials' check confirms.
    pub fn guessed_user(&self) -> Option<(Rc<RealmState>, UserRow)> {
        guessed_owner(self.credentials.as_ref())
    }

    /// The authenticated user (HTTP Basic `email:api_key`, or the web client's session),
    /// counted against the user's rate limit; a failed authentication counts against the
    /// client's IP address.
    pub async fn user(&self) -> ApiResult<UserRow> {
        let credentials = self.credentials.as_ref();
        let guess = last_key_owner(credentials);
        let authenticate = authenticate(&self.db, &self.realm_string_id, credentials);
        let ((realm, authenticated), early) = self.beside_early_count(authenticate, guess.as_ref()).await;
        self.accept(realm, authenticated, early).await
    }

    /// The authenticated user in the role `G` asks for (an administrator, a member, a bot);
    /// its error when the user is not one.
    pub async fn user_as<G: Guard>(&self) -> ApiResult<G> {
        G::admit(self.user().await?)
    }

    /// Authenticates and makes `reads` as the user, in ONE D1 round trip where it can:
    /// `reads`' statements go into the batch that checks the credentials.
    ///
    /// That batch is built as the user row and with the settings this isolate last saw for
    /// the key; what it read is used only when the credentials pass, authentication returns
    /// exactly that row, and the settings version it read is the one the statements were
    /// built with. Otherwise (the key's first request in this isolate, a changed user or
    /// setting) the reads run again as the user authentication returned: one more round
    /// trip, never a read made as someone else or under old settings. Authentication's
    /// errors come first, as with [`Self::user`].
    pub async fn read_as_user<R: ReadAsUser>(&self, reads: &R) -> ApiResult<(UserRow, Rc<RealmState>, R::Output)> {
        let (me, state, output, _) = self.read(reads, Remember::No).await?;
        Ok((me, state, output))
    }

    /// [`Self::read_as_user`]; with [`Remember::Yes`], also what the reads answered when
    /// they rode in the authentication batch: a writer keeps it ([`Remembrance::keep`]) when
    /// its write left those answers as they were, for the user's next write of the same reads.
    pub async fn read<R: ReadAsUser>(
        &self,
        reads: &R,
        remember: Remember,
    ) -> ApiResult<(UserRow, Rc<RealmState>, R::Output, Option<Remembrance>)> {
        let credentials = self.credentials.as_ref();
        let me = match guessed_owner(credentials) {
            Some((state, guessed)) => {
                let mut batch = Batch::new();
                let pending = add_authentication(&mut batch, &self.realm_string_id, credentials);
                // A statement that cannot be built reports its error after authentication's.
                let slots = match pending {
                    Ok(pending) => reads.add(&mut batch, &guessed, &state).map(|slots| (pending, slots)),
                    Err(err) => Err(err),
                };
                match slots {
                    Ok((pending, slots)) => {
                        let key = (remember == Remember::Yes).then(|| remembered_reads::key(&batch));
                        let (results, early) = self.beside_early_count(batch.run(&self.db), Some(&guessed)).await;
                        let results = results?;
                        let (realm, authenticated) = check_authentication(&results, pending);
                        let me = self.accept(realm, authenticated, early).await?;
                        if me == guessed && self.settings_version(me.realm_id) == Some(state.version) {
                            let output = reads.take(&results, slots, &me, &state)?;
                            let remembrance = key.map(|key| Remembrance::new(key, results.to_rows()));
                            return Ok((me, state, output, remembrance));
                        }
                        me
                    }
                    Err(_) => self.user().await?,
                }
            }
            None => self.user().await?,
        };
        let state = self.realm_state(me.realm_id).await?;
        let mut batch = Batch::new();
        let slots = reads.add(&mut batch, &me, &state)?;
        let results = batch.run(&self.db).await?;
        let output = reads.take(&results, slots, &me, &state)?;
        Ok((me, state, output, None))
    }

    /// What [`Self::read_as_user`] would answer, from the answers this isolate remembers
    /// for exactly the same statements, with no round trip; `None` when it has none, or
    /// when they fail authentication or `reads`' own checks. Only a write may use them,
    /// and only with the [`Recall`]'s guards first in its batch: they fail it, writing
    /// nothing, unless every read still answers what was remembered ([`Recall::is_stale`];
    /// the writer then reads again). The request is counted against the user's rate limit
    /// here, before any write; the writer settles the count once it committed
    /// ([`Self::settle_recalled_count`]), and a request that reads again has its
    /// authentication confirm or refund it.
    pub async fn recall_as_user<R: ReadAsUser>(&self, reads: &R) -> ApiResult<Option<(UserRow, Rc<RealmState>, R::Output, Recall)>> {
        let credentials = self.credentials.as_ref();
        let Some((state, guessed)) = guessed_owner(credentials) else { return Ok(None) };
        let mut batch = Batch::new();
        let Ok(pending) = add_authentication(&mut batch, &self.realm_string_id, credentials) else {
            return Ok(None);
        };
        let Ok(slots) = reads.add(&mut batch, &guessed, &state) else { return Ok(None) };
        let Some(recalled) = remembered_reads::recall(&batch)? else { return Ok(None) };
        let (realm, authenticated) = check_authentication(&recalled.results, pending);
        let (Some(realm), Ok(me)) = (realm, authenticated) else { return Ok(None) };
        if me != guessed || realm.settings_version != state.version {
            return Ok(None);
        }
        let Ok(output) = reads.take(&recalled.results, slots, &me, &state) else { return Ok(None) };
        if self.rate_limit.borrow().is_none() {
            let early = self.count_early(&me).await;
            let within = matches!(&early.decision, Ok(d) if rate_limits::refuse_over_limit(d.as_ref()).is_ok());
            *self.recalled_count.borrow_mut() = Some(early);
            // Over the limit: refused by the request's own authentication, which may also
            // find that the key no longer authenticates (then the count is refunded).
            if !within {
                return Ok(None);
            }
        }
        *self.realm.borrow_mut() = Some(realm);
        Ok(Some((me, state, output, recalled.recall)))
    }

    /// A write made from recalled answers committed: the count made for their user is this
    /// request's (its `X-RateLimit-*` headers).
    pub fn settle_recalled_count(&self) {
        if let Some(EarlyCount { decision: Ok(decision), .. }) = self.recalled_count.borrow_mut().take() {
            *self.rate_limit.borrow_mut() = decision;
        }
    }

    /// Runs `authentication` and, when this isolate knows whom the key authenticated as
    /// last, counts the request against that user's rate limit at the same time: the
    /// count is a Durable Object round trip that would otherwise wait for D1's.
    async fn beside_early_count<T>(&self, authentication: impl Future<Output = T>, guess: Option<&UserRow>) -> (T, Option<EarlyCount>) {
        let recalled = self.recalled_count.borrow_mut().take();
        if recalled.is_some() {
            return (authentication.await, recalled);
        }
        match guess.filter(|_| self.rate_limit.borrow().is_none()) {
            Some(user) => {
                let (out, early) = futures_util::future::join(authentication, self.count_early(user)).await;
                (out, Some(early))
            }
            None => (authentication.await, None),
        }
    }

    /// Counts the request against `user`'s rate limit before the credentials are checked;
    /// [`Self::accept`] keeps the count only for the user they authenticate.
    async fn count_early(&self, user: &UserRow) -> EarlyCount {
        let bucket = Bucket::User { realm_id: user.realm_id, user_id: user.id };
        EarlyCount { realm_id: user.realm_id, user_id: user.id, decision: rate_limits::check(&self.env, &self.rules, &bucket, true).await }
    }

    /// Remembers the organization, and counts the request against the user's rate limit
    /// (or, when authentication failed, against the client's address). A count made
    /// before the credentials were checked stands only for the user they authenticate;
    /// any other is taken back, so a key that stopped authenticating uses up nobody's limit.
    async fn accept(&self, realm: Option<RealmRow>, authenticated: ApiResult<UserRow>, early: Option<EarlyCount>) -> ApiResult<UserRow> {
        if let Some(realm) = realm {
            *self.realm.borrow_mut() = Some(realm);
        }
        match authenticated {
            Ok(user) => {
                if self.rate_limit.borrow().is_none() {
                    let decision = match early {
                        Some(early) if early.user_id == user.id && early.realm_id == user.realm_id => early.decision?,
                        other => {
                            self.refund(other).await;
                            rate_limits::check(&self.env, &self.rules, &Bucket::User { realm_id: user.realm_id, user_id: user.id }, true)
                                .await?
                        }
                    };
                    rate_limits::refuse_over_limit(decision.as_ref())?;
                    *self.rate_limit.borrow_mut() = decision;
                }
                Ok(user)
            }
            Err(err) => {
                self.refund(early).await;
                if err.status == 401 {
                    self.count_unauthenticated().await?;
                }
                Err(err)
            }
        }
    }

    /// Takes back an early count that turned out not to be this request's user's. A
    /// refund that fails leaves one request too many in that window; the request's own
    /// answer does not depend on it.
    async fn refund(&self, early: Option<EarlyCount>) {
        if let Some(EarlyCount { realm_id, user_id, decision: Ok(decision) }) = early {
            if let Err(err) = rate_limits::refund(&self.env, &Bucket::User { realm_id, user_id }, decision.as_ref()).await {
                worker::console_error!("rate-limit count of user {user_id} not refunded: {}", err.msg);
            }
        }
    }

    /// Counts an unauthenticated request against the client's IP address.
    pub async fn count_unauthenticated(&self) -> ApiResult<()> {
        let decision = rate_limits::check(&self.env, &self.rules, &Bucket::Ip(&self.client_ip), true).await?;
        rate_limits::refuse_over_limit(decision.as_ref())
    }

    /// The user's rate limit as this request left it, if it was counted.
    pub fn rate_limit(&self) -> Option<RateLimitDecision> {
        self.rate_limit.borrow().clone()
    }
}
