//! The organization's icon and its day and night logos: where each is stored and served,
//! its `*_source` and `*_url` as Zulip reports them (`zerver/lib/realm_icon.py`,
//! `realm_logo.py`), and the data of their `realm` `update_dict` events.
//!
//! - The icon is uploaded (`U`, served here) or Gravatar's identicon of the organization's
//!   `string_id` (`G`), as Zulip with Gravatar enabled. Hashed with SHA-256, as this server's
//!   Gravatar user avatars are (`domain::users::avatar_url`; Gravatar takes either hash).
//! - A logo is uploaded (`U`) or the default logo (`D`), Zulip's static
//!   `/static/images/logo/zulip-org-logo.svg?version=0`, which the web client's static
//!   assets serve (`web/static/`).
//! - Uploaded images are served without credentials from
//!   `/user_avatars/<realm_id>/realm/<file>?version=N`, like avatars; the file name is random
//!   and new at every upload, so the bytes at one URL never change.

use serde_json::{json, Map, Value};

use crate::db::realms::RealmRow;

/// Zulip's server settings `MAX_ICON_FILE_SIZE_MIB` and `MAX_LOGO_FILE_SIZE_MIB` (default 5).
pub const MAX_ICON_FILE_SIZE_MIB: i64 = 5;
pub const MAX_LOGO_FILE_SIZE_MIB: i64 = 5;

/// Zulip's default logo (its `staticfiles_storage.url("images/logo/zulip-org-logo.svg")`).
pub const DEFAULT_LOGO_URL: &str = "/static/images/logo/zulip-org-logo.svg?version=0";

/// Which of the organization's images.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RealmImage {
    Icon,
    /// The logo, or with `night` the one for the dark theme.
    Logo {
        night: bool,
    },
}

impl RealmImage {
    /// The error of a multipart body that does not hold exactly one file.
    pub fn one_file_message(self) -> &'static str {
        match self {
            RealmImage::Icon => "You must upload exactly one icon.",
            RealmImage::Logo { .. } => "You must upload exactly one logo.",
        }
    }

    pub fn max_file_size_mib(self) -> i64 {
        match self {
            RealmImage::Icon => MAX_ICON_FILE_SIZE_MIB,
            RealmImage::Logo { .. } => MAX_LOGO_FILE_SIZE_MIB,
        }
    }

    /// The `property` of its `realm` `update_dict` event.
    pub fn event_property(self) -> &'static str {
        match self {
            RealmImage::Icon => "icon",
            RealmImage::Logo { night: false } => "logo",
            RealmImage::Logo { night: true } => "night_logo",
        }
    }

    /// Its uploaded file in `realm` and that file's version.
    fn file_and_version(self, realm: &RealmRow) -> (Option<&str>, i64) {
        match self {
            RealmImage::Icon => (realm.icon_file.as_deref(), realm.icon_version),
            RealmImage::Logo { night: false } => (realm.logo_file.as_deref(), realm.logo_version),
            RealmImage::Logo { night: true } => (realm.night_logo_file.as_deref(), realm.night_logo_version),
        }
    }
}

/// The R2 key of an uploaded organization image; served at `/user_avatars/` + the key.
pub fn storage_key(realm_id: i64, file_name: &str) -> String {
    format!("{realm_id}/realm/{file_name}")
}

/// Zulip's `icon_source` / `logo_source` / `night_logo_source`.
pub fn image_source(realm: &RealmRow, image: RealmImage) -> &'static str {
    match (image, image.file_and_version(realm).0) {
        (_, Some(_)) => "U",
        (RealmImage::Icon, None) => "G",
        (RealmImage::Logo { .. }, None) => "D",
    }
}

/// Zulip's `icon_url` / `logo_url` / `night_logo_url`: relative to the organization's URL
/// where this server serves the image, as Zulip's are.
pub fn image_url(realm: &RealmRow, image: RealmImage) -> String {
    match (image, image.file_and_version(realm)) {
        (_, (Some(file), version)) => {
            format!("{}{}?version={version}", crate::domain::realm_emoji::IMAGES_PREFIX, storage_key(realm.id, file))
        }
        (RealmImage::Icon, (None, _)) => {
            let hash = crate::secrets::sha256_hex(realm.string_id.to_lowercase().as_bytes());
            format!("https://secure.gravatar.com/avatar/{hash}?d=identicon")
        }
        (RealmImage::Logo { .. }, (None, _)) => DEFAULT_LOGO_URL.to_string(),
    }
}

/// The `data` of the `realm` `update_dict` event: `{icon_url, icon_source}`,
/// `{logo_url, logo_source}` or `{night_logo_url, night_logo_source}`.
pub fn image_event_data(realm: &RealmRow, image: RealmImage) -> Map<String, Value> {
    let property = image.event_property();
    let mut data = Map::new();
    data.insert(format!("{property}_url"), json!(image_url(realm, image)));
    data.insert(format!("{property}_source"), json!(image_source(realm, image)));
    data
}

/// `url` as an absolute URL: one relative to the organization's URL joined to `base_url`
/// (`/server_settings` answers the icon's full URL, as this server always has).
pub fn absolute_url(base_url: &str, url: &str) -> String {
    if url.starts_with('/') {
        format!("{base_url}{url}")
    } else {
        url.to_string()
    }
}

/// Zulip's `append_url_query_string`: the redirect of `GET /realm/icon` keeps the request's
/// query string after the URL's own.
pub fn append_query_string(url: &str, query: &str) -> String {
    if query.is_empty() {
        return url.to_string();
    }
    let separator = if !url.contains('?') {
        "?"
    } else if url.ends_with('?') {
        ""
    } else {
        "&"
    };
    format!("{url}{separator}{query}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn realm() -> RealmRow {
        RealmRow {
            id: 7,
            string_id: "Zulip".into(),
            name: "Zulip Dev".into(),
            description: String::new(),
            deactivated: 0,
            date_created: 0,
            settings_version: 0,
            uuid: String::new(),
            icon_file: None,
            icon_version: 1,
            logo_file: None,
            logo_version: 1,
            night_logo_file: None,
            night_logo_version: 1,
        }
    }

    #[test]
    fn without_uploads_the_icon_is_gravatars_identicon_and_the_logos_the_default() {
        let r = realm();
        assert_eq!(image_source(&r, RealmImage::Icon), "G");
        let hash = crate::secrets::sha256_hex(b"zulip");
        assert_eq!(image_url(&r, RealmImage::Icon), format!("https://secure.gravatar.com/avatar/{hash}?d=identicon"));
        for night in [false, true] {
            assert_eq!(image_source(&r, RealmImage::Logo { night }), "D");
            assert_eq!(image_url(&r, RealmImage::Logo { night }), "/static/images/logo/zulip-org-logo.svg?version=0");
        }
    }

    #[test]
    fn an_uploaded_image_is_served_here_under_its_version() {
        let r = RealmRow { icon_file: Some("ab.png".into()), icon_version: 4, night_logo_file: Some("cd.svg".into()), ..realm() };
        assert_eq!(image_source(&r, RealmImage::Icon), "U");
        assert_eq!(image_url(&r, RealmImage::Icon), "/user_avatars/7/realm/ab.png?version=4");
        assert_eq!(image_source(&r, RealmImage::Logo { night: false }), "D", "each logo has its own file");
        assert_eq!(image_url(&r, RealmImage::Logo { night: true }), "/user_avatars/7/realm/cd.svg?version=1");
    }

    #[test]
    fn event_data_names_the_fields_after_the_property() {
        let r = realm();
        let keys = |image| image_event_data(&r, image).keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(RealmImage::Icon), ["icon_source", "icon_url"]);
        assert_eq!(keys(RealmImage::Logo { night: false }), ["logo_source", "logo_url"]);
        assert_eq!(keys(RealmImage::Logo { night: true }), ["night_logo_source", "night_logo_url"]);
    }

    #[test]
    fn the_redirect_keeps_the_query_string() {
        assert_eq!(append_query_string("/a.png?version=2", "x=1"), "/a.png?version=2&x=1");
        assert_eq!(append_query_string("https://g/avatar/h?d=identicon", ""), "https://g/avatar/h?d=identicon");
        assert_eq!(append_query_string("/a.png", "night=true"), "/a.png?night=true");
    }
}
