//! SSRF protection for WebFetch: which addresses may be dialled, and a DNS resolver that
//! hands the HTTP client only those, so the address actually connected to is the one checked.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use ipnet::{IpNet, Ipv6Net};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Which addresses WebFetch may connect to. The default refuses loopback, private,
/// link-local (cloud metadata included), shared, multicast and reserved addresses, in v4,
/// v6 and v4-in-v6 forms.
#[derive(Debug, Clone, Default)]
pub struct NetworkPolicy {
    exceptions: Vec<SocketAddr>,
}

impl NetworkPolicy {
    /// The default, public-internet-only policy.
    #[must_use]
    pub fn public_only() -> Self {
        Self::default()
    }

    /// Also allows one exact IP and port, named by an IP-literal URL (a local test server).
    /// Host names never match an exception: they always go through the filtered resolver.
    #[must_use]
    pub fn allow_exact(mut self, addr: SocketAddr) -> Self {
        self.exceptions.push(addr);
        self
    }

    /// Whether an IP-literal URL's address may be dialled.
    #[must_use]
    pub fn allows_literal(&self, addr: SocketAddr) -> bool {
        self.exceptions.contains(&addr) || is_public(addr.ip())
    }
}

fn nets(list: &[&str]) -> Vec<IpNet> {
    list.iter().filter_map(|s| s.parse().ok()).collect()
}

/// Whether an address is on the public internet.
#[must_use]
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = embedded_v4(v6) {
                return is_public_v4(v4);
            }
            let blocked = nets(&[
                "::/128",
                "::1/128",
                "fc00::/7",
                "fe80::/10",
                "fec0::/10",
                "ff00::/8",
                "100::/64",
                "2001:db8::/32",
                "2001::/32",
                "2001:10::/28",
            ]);
            !blocked.iter().any(|n| n.contains(&IpAddr::V6(v6)))
        }
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let blocked = nets(&[
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.88.99.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",
        "240.0.0.0/4",
    ]);
    !blocked.iter().any(|n| n.contains(&IpAddr::V4(ip)))
}

/// The IPv4 address inside v4-mapped, v4-compatible, NAT64 and 6to4 IPv6 addresses.
fn embedded_v4(v6: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = v6.to_ipv4_mapped() {
        return Some(v4);
    }
    let seg = v6.segments();
    let tail = Ipv4Addr::new((seg[6] >> 8) as u8, seg[6] as u8, (seg[7] >> 8) as u8, seg[7] as u8);
    let nat64: Ipv6Net = "64:ff9b::/96".parse().ok()?;
    let compat = seg[..6].iter().all(|&s| s == 0) && !(seg[6] == 0 && seg[7] <= 1);
    if nat64.contains(&v6) || compat {
        return Some(tail);
    }
    if seg[0] == 0x2002 {
        return Some(Ipv4Addr::new((seg[1] >> 8) as u8, seg[1] as u8, (seg[2] >> 8) as u8, seg[2] as u8));
    }
    None
}

/// A resolver that drops every non-public address; a name with none left fails to resolve.
#[derive(Debug, Clone, Default)]
pub(crate) struct GuardedResolver;

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_string();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let public: Vec<SocketAddr> = addrs.iter().copied().filter(|a| is_public(a.ip())).collect();
            if public.is_empty() {
                let err: Box<dyn std::error::Error + Send + Sync> =
                    Box::new(RefusedAddress { host, addr: addrs.first().map(SocketAddr::ip) });
                return Err(err);
            }
            let addrs: Addrs = Box::new(public.into_iter());
            Ok(addrs)
        })
    }
}

/// A name resolved only to refused addresses.
#[derive(Debug, Clone)]
pub(crate) struct RefusedAddress {
    pub(crate) host: String,
    pub(crate) addr: Option<IpAddr>,
}

impl std::fmt::Display for RefusedAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.addr {
            Some(a) => write!(f, "{} resolves to {a}, a non-public address", self.host),
            None => write!(f, "{} has no address", self.host),
        }
    }
}

impl std::error::Error for RefusedAddress {}

pub(crate) fn resolver() -> Arc<GuardedResolver> {
    Arc::new(GuardedResolver)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_addresses() {
        for bad in [
            "127.0.0.1",
            "10.1.2.3",
            "172.20.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::",
            "::127.0.0.1",
            "224.0.0.1",
            "255.255.255.255",
        ] {
            assert!(!is_public(bad.parse().unwrap()), "{bad} should be refused");
        }
        for good in ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"] {
            assert!(is_public(good.parse().unwrap()), "{good} should be allowed");
        }
    }
}
