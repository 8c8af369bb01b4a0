#!/usr/bin/python3
# A real SMTP server on loopback for kreg's mail tests (Debian's
# python3-aiosmtpd). Every message it takes is saved in DIR as N.eml, with
# N.env holding the envelope (MAIL FROM, then one RCPT TO a line).
#
#   smtp-server.py DIR PORT [MODE [OPTION...]]
#     MODE ok          250 for every message (default)
#          tempfail:N  451 for the first N messages, then 250
#          reject      554 for every message
#          stall:N     the first message: saved, then no answer after its
#                      end for N seconds, then 250; the next ones 250
#     OPTION auth:USER:PASSWORD   AUTH required (PLAIN/LOGIN), only that one
#            starttls:CERT:KEY    STARTTLS offered and required
#            smtps:CERT:KEY       TLS from the first byte
#
# It writes DIR/ready once it listens and stops on SIGTERM.
import asyncio
import os
import signal
import ssl
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Handler:
    def __init__(self, outdir, mode):
        self.outdir = outdir
        self.mode = mode
        self.seen = 0
        self.saved = 0

    async def handle_DATA(self, server, session, envelope):
        self.seen += 1
        if self.mode == "reject":
            return "554 5.7.1 rejected by kreg's test server"
        if self.mode.startswith("tempfail:") and self.seen <= int(self.mode.split(":")[1]):
            return "451 4.3.0 kreg's test server: try again later"
        self.saved += 1
        base = os.path.join(self.outdir, "%d" % self.saved)
        with open(base + ".env.tmp", "w") as f:
            f.write(envelope.mail_from + "\n")
            for r in envelope.rcpt_tos:
                f.write(r + "\n")
        with open(base + ".eml.tmp", "wb") as f:
            f.write(envelope.original_content)
        os.rename(base + ".env.tmp", base + ".env")
        os.rename(base + ".eml.tmp", base + ".eml")
        if self.mode.startswith("stall:") and self.seen == 1:
            await asyncio.sleep(float(self.mode.split(":")[1]))
        return "250 2.0.0 OK saved"


def main():
    outdir, port = sys.argv[1], int(sys.argv[2])
    mode = sys.argv[3] if len(sys.argv) > 3 else "ok"
    kwargs = {}
    for opt in sys.argv[4:]:
        kind, a, b = opt.split(":", 2)
        if kind == "auth":
            def authenticator(server, session, envelope, mechanism, data, user=a, pw=b):
                ok = (isinstance(data, LoginPassword) and data.login == user.encode()
                      and data.password == pw.encode())
                return AuthResult(success=ok, handled=False)
            kwargs.update(authenticator=authenticator, auth_required=True,
                          auth_require_tls=False)
        else:
            ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            ctx.load_cert_chain(a, b)
            if kind == "starttls":
                kwargs.update(tls_context=ctx, require_starttls=True)
            else:
                kwargs.update(ssl_context=ctx)
    os.makedirs(outdir, exist_ok=True)
    controller = Controller(Handler(outdir, mode), hostname="127.0.0.1", port=port, **kwargs)
    controller.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: stop.set())
    signal.signal(signal.SIGINT, lambda *a: stop.set())
    with open(os.path.join(outdir, "ready"), "w") as f:
        f.write("%d\n" % os.getpid())
    stop.wait()
    controller.stop()
    os.unlink(os.path.join(outdir, "ready"))


if __name__ == "__main__":
    main()
