"""The per-case viewer inside report.html: cases.json embedded as JSON, drawn by a small script.

Filters: stratum, target, status (wrong, missed fake, false flag, correct, failed
call), disagreements (cases where the targets' decisions differ) and a case-id
search. A list of cases (100 a page, thumbnails decoded only when scrolled into
view); a click opens the case: its image, its label and every target's runs side
by side (status, risk, decision, extracted fields, reasons with proof/opinion
marked and the @fields they point at), the target chosen in the filter first.
Offline: no request leaves the page (the script and data are inline).
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

import msgspec

from rabench.contracts.views import CasesFile
from rabench.report.style import target_colour

STATUSES = [
    ("", "any"),
    ("wrong", "wrong (missed fake or false flag)"),
    ("missed", "missed fake"),
    ("falseflag", "false flag"),
    ("correct", "correct"),
    ("failed", "failed call"),
]

CSS = """
#viewer .vf{display:flex;flex-wrap:wrap;gap:10px 16px;align-items:center;background:#fff;border:1px solid #e3e3e3;border-radius:6px;padding:8px 10px;position:sticky;top:0;z-index:2}
#viewer select,#viewer input[type=search]{font:inherit;padding:2px 4px}
#viewer .vwrap{display:flex;gap:14px;align-items:flex-start;margin-top:10px}
#viewer .vwrap>div:first-child{flex:0 0 470px;max-width:470px}
#v-list{max-height:80vh;overflow:auto;background:#fff;border:1px solid #e3e3e3;border-radius:6px}
.v-row{display:flex;gap:8px;padding:6px 8px;border-bottom:1px solid #eee;cursor:pointer;align-items:flex-start}
.v-row:hover,.v-row.sel{background:#eef4ff}.v-row img{width:44px;height:66px;object-fit:cover;object-position:top;border:1px solid #ddd;background:#f3f3f3}
.v-row .v-id{font-weight:600}.v-chip{display:inline-block;border-left:4px solid #999;padding:0 5px;margin:2px 3px 0 0;font-size:12px;background:#f7f7f7}
.r-missed,.r-falseflag{color:#c62828;font-weight:600}.r-failed{color:#8a56ac;font-style:italic}.r-correct{color:#1a7f37}
#v-detail{flex:1;min-width:0;background:#fff;border:1px solid #e3e3e3;border-radius:6px;padding:10px;min-height:200px}
#v-detail .v-top{display:flex;gap:14px}#v-detail .v-top img{width:220px;border:1px solid #ddd}
.v-cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(230px,1fr));gap:10px;margin-top:10px}
.v-col{border-top:4px solid #999;background:#fafafa;padding:6px 8px}.v-col h4{margin:0 0 4px;font-size:13px;word-break:break-all}
.v-rep{border-top:1px dashed #ddd;padding:4px 0;font-size:12.5px}.v-rep .fl{color:#555;font-size:12px;word-break:break-word}
.v-rep ul{margin:3px 0 0 0;padding-left:16px}.k{display:inline-block;font-size:10.5px;padding:0 4px;border-radius:3px;background:#e8e8ee;margin-right:4px;text-transform:uppercase}
.k.proof{background:#1a7f37;color:#fff}.k.opinion{background:#ddd;color:#333}.k.check{background:#1f5fa8;color:#fff}
.at{color:#8a56ac;font-size:12px;margin-left:4px}#v-more{margin:8px}
"""

JS = r"""
(function(){
const D=JSON.parse(document.getElementById('v-data').textContent);
const S=D.strings,T=D.targets,C=D.cases,COL=D.colours,FA=D.flag_at;
const $=id=>document.getElementById(id);
const esc=s=>String(s).replace(/[&<>"']/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c]));
const str=k=>k<0?'':S[k];
// Risks are shown cut, never rounded up: 0.49996 reads 0.49 (not flagged), never 0.50.
const cut=(r,d)=>{const f=10**d;return (Math.floor(r*f+1e-9)/f).toFixed(d);};
function res(run,fake){if(run[1]!=='ok')return 'failed';const f=run[2]!==null&&run[2]>=FA;
  return fake?(f?'correct':'missed'):(f?'falseflag':'correct');}
const NAMES={missed:'missed fake',falseflag:'false flag',correct:'correct',failed:'failed call'};
for(const c of C){c.res=c.runs.map(rs=>rs.map(r=>res(r,c.fake)));
  const dec=new Set();c.runs.forEach(rs=>{const ok=rs.filter(r=>r[1]==='ok');if(!ok.length)return;
    const n=ok.filter(r=>r[2]!==null&&r[2]>=FA).length;dec.add(2*n>=ok.length&&n>0?1:0);});
  c.dis=dec.size>1;}
let shown=[],limit=100,sel=null;
function match(c,t,st){if(!st)return true;const idx=t===''?T.map((_,i)=>i):[+t];
  return idx.some(i=>c.res[i].some(r=>st==='wrong'?(r==='missed'||r==='falseflag'):r===st));}
function apply(){const s=$('v-stratum').value,t=$('v-target').value,st=$('v-status').value,
  dis=$('v-dis').checked,q=$('v-q').value.trim().toLowerCase();
  shown=C.filter(c=>(s===''||c.strata.includes(+s))&&(!dis||c.dis)&&(!q||c.id.toLowerCase().includes(q))&&match(c,t,st));
  limit=100;draw();}
const io=('IntersectionObserver' in window)?new IntersectionObserver(es=>{for(const e of es){if(e.isIntersecting){
  const im=e.target;if(im.dataset.src){im.src=im.dataset.src;delete im.dataset.src;}io.unobserve(im);}}},{root:$('v-list'),rootMargin:'200px'}):null;
function order(){const t=$('v-target').value;return t===''?T.map((_,i)=>i):[+t,...T.map((_,i)=>i).filter(i=>i!==+t)];}
function chip(c,i){const rs=c.runs[i];const txt=rs.length?rs.map((r,k)=>{const x=c.res[i][k];
  return '<span class="r-'+x+'">'+(r[1]!=='ok'?esc(r[1]):(r[2]===null?'no risk':cut(r[2],2)))+'</span>';}).join(' / '):'—';
  return '<span class="v-chip" style="border-color:'+COL[i]+'" title="'+esc(T[i])+'">'+esc(T[i].split(':').pop())+' '+txt+'</span>';}
function lab(c){const l=c.label;return l[0]+(l[1]?' · '+l[1]:'')+(l[2].length?' · edited '+l[2].join(', '):'');}
function draw(){const L=$('v-list');const part=shown.slice(0,limit);const o=order();
  L.innerHTML=part.map(c=>'<div class="v-row'+(sel===c?' sel':'')+'" data-case="'+esc(c.id)+'">'+
    (c.img?'<img alt="" data-src="'+c.img+'">':'<img alt="">')+'<div><span class="v-id">'+esc(c.id)+'</span> <span class="meta">'+esc(lab(c))+
    (c.dis?' · <b>disagree</b>':'')+'</span><br>'+o.map(i=>chip(c,i)).join('')+'</div></div>').join('');
  $('v-count').textContent=shown.length+' of '+C.length+' cases';
  $('v-more').style.display=shown.length>limit?'':'none';
  if(io)L.querySelectorAll('img[data-src]').forEach(im=>io.observe(im));
  else L.querySelectorAll('img[data-src]').forEach(im=>{im.src=im.dataset.src;});}
function reason(r){const f=r[2].map(x=>'<span class="at">@'+esc(x)+'</span>').join('');
  return '<li><span class="k '+esc(r[0])+'">'+esc(r[0])+(r[3]?': '+esc(r[3]):'')+'</span>'+esc(str(r[1]))+f+'</li>';}
function open_(c){sel=c;const l=c.label;const o=order();const d=$('v-detail');d.dataset.case=c.id;
  d.innerHTML='<div class="v-top">'+(c.img?'<img alt="'+esc(c.id)+'" src="'+c.img+'">':'')+'<div><h3>'+esc(c.id)+'</h3>'+
  '<div class="v-label"><b>label:</b> '+esc(lab(c))+'</div><div class="meta">provenance '+esc(l[3])+(c.lineage?' · '+esc(c.lineage):'')+'</div>'+
  '<div class="meta">'+esc(l[4])+'</div><div class="meta">image: '+esc(c.img_kind)+(c.img?'':' (none)')+'</div>'+
  '<div class="meta">strata: '+c.strata.map(k=>esc(D.strata[k])).join(', ')+'</div></div></div>'+
  '<div class="v-cols">'+o.map(i=>'<div class="v-col" data-target="'+esc(T[i])+'" style="border-color:'+COL[i]+'"><h4>'+esc(T[i])+'</h4>'+
   (c.runs[i].length?c.runs[i].map((r,k)=>{const x=c.res[i][k];
    return '<div class="v-rep" data-rep="'+r[0]+'"><b>rep '+r[0]+'</b> · '+esc(r[1])+(r[1]==='ok'?' · risk '+(r[2]===null?'none (never flagged)':cut(r[2],3))+
     ' · '+(r[2]!==null&&r[2]>=FA?'flagged':'approved'):'')+' → <span class="r-'+x+'">'+NAMES[x]+'</span>'+
     (r[3]>=0?'<div class="fl">'+esc(str(r[3]))+'</div>':'')+(r[5]>=0?'<div class="fl">'+esc(str(r[5]))+'</div>':'')+
     (r[4].length?'<ul>'+r[4].map(reason).join('')+'</ul>':'')+'</div>';}).join(''):'<div class="meta">no run</div>')+'</div>').join('')+'</div>';
  document.querySelectorAll('.v-row.sel').forEach(e=>e.classList.remove('sel'));
  const row=document.querySelector('.v-row[data-case="'+CSS.escape(c.id)+'"]');if(row)row.classList.add('sel');}
const byId=new Map(C.map(c=>[c.id,c]));
$('v-list').addEventListener('click',e=>{const r=e.target.closest('.v-row');if(r)open_(byId.get(r.dataset.case));});
['v-stratum','v-target','v-status','v-dis'].forEach(id=>$(id).addEventListener('change',()=>{apply();if(sel)open_(sel);}));
$('v-q').addEventListener('input',apply);
$('v-more').addEventListener('click',()=>{limit+=100;draw();});
apply();
document.getElementById('viewer').dataset.ready='1';
})();
"""


def _json_for_script(doc: Mapping[str, Any]) -> str:
    """JSON safe inside <script>: no '</' can close the element early."""
    return msgspec.json.encode(doc).decode().replace("</", "<\\/").replace("<!--", "<\\!--")


def section(doc: CasesFile | None) -> str:
    """The viewer's HTML (filters, list, detail, data, script); a note when there is no cases.json."""
    if doc is None or not doc.cases:
        return (
            "<h2 id='cases'>Cases</h2><p class='meta'>No cases.json beside rows.json (scored by an "
            "older rabench?): re-run `rabench score` to get the per-case viewer.</p>"
        )
    targets = list(doc.targets)
    data: dict[str, Any] = msgspec.to_builtins(doc)  # the page's embedded JSON, plus the colours
    data["colours"] = [target_colour(t) for t in targets]
    e = lambda s: html.escape(str(s), quote=True)  # noqa: E731
    strata = "".join(f"<option value='{k}'>{e(name)}</option>" for k, name in enumerate(doc.strata))
    tgt = "".join(f"<option value='{k}'>{e(t)}</option>" for k, t in enumerate(targets))
    st = "".join(f"<option value='{v}'>{e(label)}</option>" for v, label in STATUSES)
    return (
        "<section id='viewer'><h2 id='cases'>Cases</h2>"
        "<p class='meta'>Every case of the suite with every target's runs. A run is flagged when its risk is "
        f"at least {doc.flag_at}; a run without a risk is never flagged; a failed call "
        "(error, refusal, timeout, invalid output) has no decision. <i>Disagreements</i>: cases where the "
        "targets' decisions (flagged in most of their runs, or not) differ. Click a case to open it.</p>"
        "<div class='vf'>"
        f"<label>stratum <select id='v-stratum'><option value=''>all</option>{strata}</select></label>"
        f"<label>target <select id='v-target'><option value=''>every target</option>{tgt}</select></label>"
        f"<label>status <select id='v-status'>{st}</select></label>"
        "<label><input type='checkbox' id='v-dis'> disagreements only</label>"
        "<input type='search' id='v-q' placeholder='case id'>"
        "<span id='v-count' class='meta'></span></div>"
        "<div class='vwrap'><div><div id='v-list'></div><button id='v-more' type='button'>show 100 more</button></div>"
        "<div id='v-detail'><p class='meta'>Click a case on the left.</p></div></div>"
        f"<script type='application/json' id='v-data'>{_json_for_script(data)}</script>"
        f"<script>{JS}</script></section>"
    )
