"""E-mail threads as ``.eml`` files (stdlib ``email``): headers, display names, reply chains.

Why phrase pools shared by fraud and genuine mail: urgency, "reply by e-mail", "new bank
details" and "please process today" are written by honest vendors and executives too. What
gives a fraud away is relational (the sender's domain against the vendor master, a Reply-To
elsewhere, a callback number that is not the one on file, a payee not in the master), so every
phrase here is drawn for both classes and only those relations differ.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime, formataddr

import numpy as np

MAILERS = (
    "Microsoft Outlook 16.0",
    "Apple Mail (2.3774)",
    "Mozilla Thunderbird 115.6",
    None,
    None,
    "Microsoft Exchange Server 2019",
)
FREEMAIL = ("gmail.com", "outlook.com", "gmx.net", "yahoo.com", "proton.me")
TICKETING = ("zendesk.com", "freshdesk.com", "billtrust.com")  # AR / help-desk services vendors reply through

GREETING = ("Hello {to},", "Hi {to},", "Dear {to},", "Good morning {to},", "Dear Accounts Payable team,")
SIGN_OFF = ("Kind regards", "Best regards", "Many thanks", "Thanks", "Regards")
SEND_INVOICE = (
    "Please find attached our invoice {number} for {amount}.",
    "Attached is invoice {number} ({amount}) for the latest delivery.",
    "As agreed, here is invoice {number} over {amount}.",
    "Invoice {number} for {amount} is attached; the PO reference is on the invoice.",
)
URGENCY = (
    "Could you make sure this is paid by Friday? Our auditors close the quarter next week.",
    "This one is now overdue and our credit team has put the account on review, so a quick payment would help.",
    "We would be grateful if this could go out in today's payment run.",
    "Payment is needed before the end of the week, otherwise the next delivery is held.",
)
EMAIL_ONLY = (
    "Our office phones are being moved this week, so e-mail is the best way to reach me.",
    "I am travelling until Thursday; please reply by e-mail rather than calling.",
    "Please use this e-mail for any questions, I am rarely at my desk.",
)
CALL_US = (
    "If anything is unclear, call me on {phone}.",
    "For questions you can reach our accounts team on {phone}.",
)
BANK_CHANGE = (
    "Please note that we have moved our banking to {bank}. From now on please pay to IBAN {account}.",
    "Our bank details have changed: new account {account} at {bank}. The invoice already shows the new details.",
    "Following a change of our main bank, payments should now be made to {account} ({bank}).",
)
BANK_SAME = (
    "Payment to the account shown on the invoice, as usual ({bank}).",
    "Our bank details are unchanged; please pay to {account} as before.",
    "Please transfer the amount to our account at {bank} quoting the invoice number.",
)
BANK_FORM = (
    "We have filled in your supplier bank change form as requested by your team.",
    "Your vendor team has our signed letter on company paper.",
)
SKIP_CONTROL = (
    "Given the timing, could this go through without the usual second approval this once?",
    "Please process it directly; the PO paperwork will follow next week.",
)
EXEC_ASK = (
    "I need you to process the attached invoice from {vendor} today. It is for a confidential acquisition project.",
    "Please prioritise the payment to {vendor} in today's run; I have agreed it with them personally.",
    "Can you release the invoice from {vendor} today? The board wants this closed before the weekend.",
)
REPLY_OK = (
    "Thanks, we have received the invoice and it is in the approval workflow.",
    "Received, thank you. We will process it with the next payment run.",
    "Thank you, invoice noted. I will come back to you if anything is missing.",
)


@dataclass(frozen=True, slots=True)
class Mail:
    sender_name: str
    sender: str
    to_name: str
    to: str
    sent: datetime
    subject: str
    body: str
    reply_to: str | None = None
    mailer: str | None = None
    auth: str | None = None  # Authentication-Results value (for mail received from outside)


def _msgid(rng: np.random.Generator, domain: str) -> str:
    return f"<{''.join(f'{int(x):02x}' for x in rng.integers(0, 256, 12))}@{domain}>"


def body(rng: np.random.Generator, to: str, parts: list[str], signer: str, signature: list[str]) -> str:
    greet = str(rng.choice(GREETING)).format(to=to.split()[0])
    return "\n\n".join([greet, *parts, f"{rng.choice(SIGN_OFF)},\n{signer}\n" + "\n".join(signature)]) + "\n"


def thread_eml(
    rng: np.random.Generator, mails: list[Mail], *, attachment: tuple[str, bytes, str] | None = None
) -> bytes:
    """The newest message of ``mails`` (oldest first) with the earlier ones quoted below it and
    In-Reply-To / References set, as a mail client saves a thread."""
    ids = [_msgid(rng, m.sender.split("@")[1]) for m in mails]
    last = mails[-1]
    msg = EmailMessage(policy=policy.SMTP)
    rcv, sdom = last.to.split("@")[1], last.sender.split("@")[1]
    mx = f"mx{int(rng.integers(1, 9))}.{rcv}"
    hops = [(mx, f"mail.{rcv}"), (f"smtp-out{int(rng.integers(1, 5))}.{sdom}", mx)]
    if rng.random() < 0.5:
        hops.append(
            (f"[10.{int(rng.integers(0, 255))}.{int(rng.integers(0, 255))}.{int(rng.integers(1, 255))}]", hops[-1][0])
        )
    for h, (src, dst) in enumerate(hops):  # newest hop first, as servers prepend
        ip = f"{int(rng.integers(11, 223))}.{int(rng.integers(0, 255))}.{int(rng.integers(0, 255))}.{int(rng.integers(1, 255))}"
        msg["Received"] = (
            f"from {src} ({src} [{ip}]) by {dst}; {format_datetime(last.sent + timedelta(seconds=len(hops) - h))}"
        )
    if last.auth:
        msg["Authentication-Results"] = last.auth
    msg["Return-Path"] = f"<{last.sender}>"
    msg["From"] = formataddr((last.sender_name, last.sender))
    msg["To"] = formataddr((last.to_name, last.to))
    if last.reply_to:
        msg["Reply-To"] = last.reply_to
    msg["Subject"] = last.subject
    msg["Date"] = format_datetime(last.sent)
    msg["Message-ID"] = ids[-1]
    if len(mails) > 1:
        msg["In-Reply-To"] = ids[-2]
        msg["References"] = " ".join(ids[:-1])
    if last.mailer:
        msg["X-Mailer"] = last.mailer
    text = last.body
    for m in reversed(mails[:-1]):
        quoted = "\n".join("> " + line if line else ">" for line in m.body.splitlines())
        text += f"\nOn {m.sent:%a, %d %b %Y at %H:%M}, {m.sender_name} <{m.sender}> wrote:\n{quoted}\n"
    msg.set_content(text)
    if attachment is not None:
        name, data, media = attachment
        main, sub = media.split("/")
        msg.add_attachment(data, maintype=main, subtype=sub, filename=name)
        # The stdlib draws a random boundary; a seeded one keeps the bytes reproducible.
        msg.set_boundary("=_" + "".join(f"{int(x):02x}" for x in rng.integers(0, 256, 14)))
    return msg.as_bytes()


def subject_for(rng: np.random.Generator, number: str, *, reply: bool, kind: str) -> str:
    base = {
        "invoice": str(
            rng.choice([f"Invoice {number}", f"Invoice {number} - payment", f"Our invoice {number}", f"{number}"])
        ),
        "bank": str(
            rng.choice([f"Invoice {number} / bank details", f"Bank details - invoice {number}", f"Invoice {number}"])
        ),
        "exec": str(rng.choice([f"Urgent: invoice {number}", f"Payment today - {number}", f"Invoice {number}"])),
    }[kind]
    return ("RE: " + base) if reply else base


def auth_results(receiver: str, sender_domain: str, *, aligned: bool) -> str:
    """What the receiving server records: a look-alike domain passes for itself; a forged From fails DMARC."""
    res = "pass" if aligned else "fail"
    return (
        f"mail.{receiver}; spf={'pass' if aligned else 'softfail'} smtp.mailfrom={sender_domain}; "
        f"dkim={res} header.d={sender_domain}; dmarc={res} header.from={sender_domain}"
    )
